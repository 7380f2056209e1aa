/**
 * A decorative icon: lucide's drawing as its static markup (lucide-static), set as the inner HTML of one
 * element. React then renders one <span> per icon instead of an <svg> and its paths through lucide-react's
 * component, which was a fifth of the frame's server time on every page (the navigation draws 16). The
 * markup is the package's own constant, never data, so setting it as HTML carries nothing from outside.
 * Sized by `className` (the <svg> fills the span); hidden from assistive technology: a name sits beside it.
 */
export function Icon({ svg, className = 'size-4' }: { svg: string; className?: string }) {
  return (
    <span
      aria-hidden
      className={`inline-flex shrink-0 [&>svg]:size-full ${className}`}
      dangerouslySetInnerHTML={{ __html: compact(svg) }}
    />
  );
}

const compacted = new Map<string, string>();
/** lucide-static writes each attribute on its own line: one line, the same drawing (worked out once per icon). */
function compact(svg: string): string {
  let line = compacted.get(svg);
  if (line === undefined) {
    line = svg
      .replace(/\s+/g, ' ')
      .replace(/\s*(\/?>)\s*/g, '$1')
      .trim();
    compacted.set(svg, line);
  }
  return line;
}
