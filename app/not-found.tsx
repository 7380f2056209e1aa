import Link from 'next/link';

export default function NotFound() {
  return (
    <main className="mx-auto max-w-xl px-4 py-16 text-center">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="mt-2 text-slate-600">There is nothing here, or the record is not in your licence.</p>
      <Link href="/" className="mt-6 inline-block font-medium text-brand-700 hover:underline">Back to the overview</Link>
    </main>
  );
}
