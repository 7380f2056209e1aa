/**
 * Code or a message a reader copies as it is: monospaced, its lines kept, scrolled sideways inside its own box rather
 * than widening the page (390 px phones); the box is a named region a keyboard can reach and scroll.
 */
export function CodeBlock({ children, label }: { children: string; label: string }) {
  return (
    <div
      role="region"
      aria-label={label}
      tabIndex={0}
      className="max-w-full overflow-x-auto rounded-md border border-slate-200 bg-slate-50"
    >
      <pre className="p-3 font-mono text-xs leading-5 text-slate-800">
        <code>{children}</code>
      </pre>
    </div>
  );
}
