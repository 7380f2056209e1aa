import { controlClass, Field, TextField } from '@/components/ui/field';

/**
 * A new delivery's destination: its fields for each kind of place, and what the form sends for them (the API
 * checks them all: lib/deliveries/input.ts). Secrets typed here are sent once and never shown again.
 */

export type DestinationType = 'directory' | 'sftp' | 'webhook' | 's3' | 'postgres';

export const DESTINATIONS: { value: DestinationType; label: string }[] = [
  { value: 'directory', label: 'folder on the server' },
  { value: 'sftp', label: 'SFTP' },
  { value: 'webhook', label: 'webhook' },
  { value: 's3', label: 'S3-compatible bucket' },
  { value: 'postgres', label: 'table in your PostgreSQL' },
];

export function destinationOf(type: DestinationType, form: FormData): Record<string, unknown> {
  const text = (name: string) => String(form.get(name) ?? '').trim();
  if (type === 'postgres')
    return { type, connection: text('connection'), ...(text('schema') ? { schema: text('schema') } : {}), table: text('table') };
  return type === 'directory'
    ? { type, folder: text('folder') }
    : type === 'sftp'
      ? {
          type,
          host: text('host'),
          port: Number(text('port') || 22),
          username: text('username'),
          path: text('path') || '.',
          ...(text('privateKey') ? { privateKey: String(form.get('privateKey')) } : { password: String(form.get('password') ?? '') }),
        }
      : type === 's3'
        ? {
            type,
            bucket: text('bucket'),
            region: text('region') || 'us-east-1',
            ...(text('endpoint') ? { endpoint: text('endpoint') } : {}),
            prefix: text('prefix'),
            accessKeyId: text('accessKeyId'),
            secretAccessKey: String(form.get('secretAccessKey') ?? ''),
          }
        : { type, url: text('url'), secret: String(form.get('secret') ?? '') };
}

export function DestinationFields({ type, errors }: { type: DestinationType; errors: Record<string, string> }) {
  return (
    <>
      {type === 'directory' && (
        <TextField
          label="Folder (under the delivery root)"
          name="folder"
          placeholder="partner/daily"
          error={errors['destination.folder']}
        />
      )}
      {type === 'sftp' && (
        <>
          <TextField label="Host" name="host" required error={errors['destination.host']} />
          <TextField label="Port" name="port" placeholder="22" inputMode="numeric" error={errors['destination.port']} />
          <TextField label="Username" name="username" required error={errors['destination.username']} />
          <TextField label="Remote folder" name="path" placeholder="incoming" error={errors['destination.path']} />
          <TextField label="Password" name="password" type="password" autoComplete="new-password" error={errors['destination.password']} />
          <div className="sm:col-span-2">
            <Field label="Or a private key (OpenSSH)" htmlFor="f-privateKey" error={errors['destination.privateKey']}>
              <textarea id="f-privateKey" name="privateKey" rows={2} className={controlClass()} />
            </Field>
          </div>
        </>
      )}
      {type === 'webhook' && (
        <>
          <div className="sm:col-span-2">
            <TextField label="URL (https)" name="url" required type="url" error={errors['destination.url']} />
          </div>
          <TextField
            label="Signing secret (16+ characters)"
            name="secret"
            required
            type="password"
            autoComplete="new-password"
            error={errors['destination.secret']}
          />
        </>
      )}
      {type === 's3' && (
        <>
          <TextField label="Bucket" name="bucket" required error={errors['destination.bucket']} />
          <TextField label="Region" name="region" placeholder="us-east-1" error={errors['destination.region']} />
          <div className="sm:col-span-2">
            <TextField
              label="Endpoint (empty for AWS; MinIO, R2 …: its https URL)"
              name="endpoint"
              type="url"
              error={errors['destination.endpoint']}
            />
          </div>
          <TextField
            label="Key prefix (files go under <prefix>/dt=<day>/)"
            name="prefix"
            placeholder="picks/daily"
            error={errors['destination.prefix']}
          />
          <TextField label="Access key id" name="accessKeyId" required autoComplete="off" error={errors['destination.accessKeyId']} />
          <TextField
            label="Secret access key"
            name="secretAccessKey"
            required
            type="password"
            autoComplete="new-password"
            error={errors['destination.secretAccessKey']}
          />
        </>
      )}
      {type === 'postgres' && (
        <>
          <div className="sm:col-span-2">
            <TextField
              label="Connection string (postgres://user:password@host:5432/database?sslmode=verify-full)"
              name="connection"
              required
              type="password"
              autoComplete="new-password"
              error={errors['destination.connection']}
            />
          </div>
          <TextField label="Schema" name="schema" placeholder="public" error={errors['destination.schema']} />
          <TextField label="Table (made when missing)" name="table" required placeholder="picks" error={errors['destination.table']} />
        </>
      )}
    </>
  );
}
