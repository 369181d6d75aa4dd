import { api, call } from '../../api/client.ts';

export const domainsKey = (projectId: string) => ['domains', projectId];

/** GET /domains/{id}/verify: checks the DNS now and answers with the domain and its records' states. */
export const fetchDomain = (id: string) => call(api.GET('/domains/{id}/verify', { params: { path: { id } } }));
export type Domain = Awaited<ReturnType<typeof fetchDomain>>;
export type DnsRecord = Domain['records'][number];
