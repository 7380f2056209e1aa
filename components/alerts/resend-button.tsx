'use client';

import { useState } from 'react';
import { useRouter } from 'next/navigation';
import { callApi } from '@/components/ui/call-api';
import { Button } from '@/components/ui/button';

/** "Send again": queues the alert for the polling instance's next check, then shows the log anew. */
export function ResendButton({ id }: { id: string }) {
  const router = useRouter();
  const [note, setNote] = useState('');
  return (
    <span className="inline-flex items-center gap-2">
      <Button
        size="sm"
        tone="secondary"
        onClick={async () => {
          const answer = await callApi(`/api/alerts/${encodeURIComponent(id)}/resend`, { method: 'POST' });
          setNote(answer.ok ? 'Queued' : answer.problem.message);
          if (answer.ok) router.refresh();
        }}
      >
        Send again
      </Button>
      <span role="status" className="text-xs text-slate-600">
        {note}
      </span>
    </span>
  );
}
