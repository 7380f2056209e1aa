/**
 * How a consumer checks what it receives, as /developers/events shows it: a webhook's signature in three languages,
 * a saved stream with the verifier and by hand. Each is run by tests/unit/verify-snippets.test.ts against a message
 * the portal's own signer made and events the portal chained, so the page never shows code that does not work.
 */

export interface Snippet {
  language: string;
  /** What the reader needs first, in words. */
  needs: string;
  code: string;
}

/** Each is a function verify(secret, headers, body): true when the message is the portal's, unaltered and recent. */
export const SIGNATURE_SNIPPETS: Snippet[] = [
  {
    language: 'Node.js',
    needs: 'npm install standardwebhooks (the Standard Webhooks library; its Python, Go, Ruby, PHP, Java and Rust versions check alike)',
    code: `import { Webhook } from 'standardwebhooks';

// secret: the webhook's whsec_… secret; headers: the request's; body: the raw body as received, not re-serialised.
export function verify(secret, headers, body) {
  try {
    new Webhook(secret).verify(body, headers); // checks webhook-signature and that webhook-timestamp is within 5 minutes
    return true;
  } catch {
    return false;
  }
}`,
  },
  {
    language: 'Python',
    needs: 'Python 3.9 or later, nothing to install',
    code: `import base64, hashlib, hmac, time

def verify(secret: str, headers: dict, body: bytes, tolerance: int = 300) -> bool:
    key = base64.b64decode(secret.removeprefix("whsec_"))
    msg_id, timestamp = headers["webhook-id"], headers["webhook-timestamp"]
    if abs(time.time() - int(timestamp)) > tolerance:
        return False  # too old (or from the future): a replay
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    return any(
        hmac.compare_digest(expected, signature.split(",", 1)[1])
        for signature in headers["webhook-signature"].split()
        if signature.startswith("v1,")
    )`,
  },
  {
    language: 'Shell (OpenSSL)',
    needs: 'bash, base64, od and openssl; the body saved as received in body.json',
    code: `# WEBHOOK_SECRET=whsec_…  ID, TIMESTAMP, SIGNATURE: the webhook-id, webhook-timestamp, webhook-signature headers
key=$(printf '%s' "\${WEBHOOK_SECRET#whsec_}" | base64 -d | od -An -v -tx1 | tr -d ' \\n')
expected=$({ printf '%s.%s.' "$ID" "$TIMESTAMP"; cat body.json; } \\
  | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$key" -binary | base64)
age=$(( $(date +%s) - TIMESTAMP ))
case " $SIGNATURE " in
  *" v1,$expected "*) [ "\${age#-}" -le 300 ] && echo verified || echo "too old" ;;
  *) echo "signature does not check" ;;
esac`,
  },
];

/** A saved stream (one event a line, as the stream's data or a webhook's `data`) checked link by link. */
export const STREAM_SNIPPETS: Snippet[] = [
  {
    language: 'Node.js (the verifier)',
    needs: 'Node 20 or later; the verifier is served by the portal at /verify-picks-events.mjs, nothing to install',
    code: `curl -sO https://<portal>/verify-picks-events.mjs
curl -s https://<portal>/api/proof/keys > keys.json
# A receipt for the span (GET /api/v1/events/receipt?from=&to=) or a checkpoint ({ "jws": … }).
node verify-picks-events.mjs events.jsonl --receipt receipt.json --keys keys.json`,
  },
  {
    language: 'Python',
    needs: 'Python 3.9 or later; checks each hash and each link (not the signed receipt: use the verifier for that)',
    code: `import base64, hashlib, json

def canonical(value) -> bytes:
    # RFC 8785 for the portal's events: keys sorted, no spaces, numbers and strings as JSON writes them.
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()

def check_stream(lines) -> int:
    previous = None
    for number, line in enumerate(lines, 1):
        event = json.loads(line)
        body = {k: v for k, v in event.items() if k not in ("prev", "hash")}
        digest = base64.urlsafe_b64encode(hashlib.sha256(canonical(body)).digest()).rstrip(b"=").decode()
        if digest != event["hash"]:
            raise ValueError(f"line {number}: event {event['seq']} was altered")
        if previous is not None and event["prev"] != previous:
            raise ValueError(f"line {number}: an event is missing or added before {event['seq']}")
        previous = event["hash"]
    return number`,
  },
];
