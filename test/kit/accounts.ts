import { randomBytes } from 'node:crypto';
import { type Client, client } from './http.ts';

export type Account = { id: string; email: string; password: string; cookie: string };

export type TestProject = {
  id: string;
  name: string;
  publicKey: string;
  secretKey: string;
  owner: Account;
  /** Preset with the secret key. */
  api: Client;
  /** Preset with the public key. */
  publicApi: Client;
  /** Preset with the owner's session cookie and X-Project-Id. */
  dashboard: Client;
};

export const DEFAULT_PASSWORD = 'correct horse battery';

/** The `mailroom_session=…` pair from a response's Set-Cookie headers. */
export function sessionCookieFrom(headers: Headers): string {
  for (const line of headers.getSetCookie()) {
    const pair = line.split(';')[0]!.trim();
    if (pair.startsWith('mailroom_session=') && pair.length > 'mailroom_session='.length) return pair;
  }
  throw new Error('no mailroom_session cookie in the response');
}

export const uniqueEmail = (label = 'user') => `${label}-${randomBytes(6).toString('hex')}@example.test`;

/** Signs up a new account (POST /auth/signup) and returns it with its session cookie. */
export async function createAccount(baseUrl: string, email: string = uniqueEmail(), password: string = DEFAULT_PASSWORD): Promise<Account> {
  const response = await client(baseUrl).post('/auth/signup', { email, password });
  if (response.status !== 201) throw new Error(`signup failed: ${response.status} ${response.text}`);
  return { id: response.body.id, email: response.body.email, password, cookie: sessionCookieFrom(response.headers) };
}

/** Creates a project (owned by a new account unless `owner` is given) with preset clients. */
export async function createProject(baseUrl: string, options: { name?: string; owner?: Account } = {}): Promise<TestProject> {
  const owner = options.owner ?? (await createAccount(baseUrl));
  const name = options.name ?? `Project ${randomBytes(3).toString('hex')}`;
  const response = await client(baseUrl).post('/users/@me/projects', { name }, { cookie: owner.cookie });
  if (response.status !== 201) throw new Error(`project create failed: ${response.status} ${response.text}`);
  const project = response.body;
  return {
    id: project.id,
    name: project.name,
    publicKey: project.publicKey,
    secretKey: project.secretKey,
    owner,
    api: client(baseUrl, { key: project.secretKey }),
    publicApi: client(baseUrl, { key: project.publicKey }),
    dashboard: client(baseUrl, { cookie: owner.cookie, projectId: project.id }),
  };
}
