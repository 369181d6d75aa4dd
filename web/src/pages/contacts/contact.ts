import { api, call } from '../../api/client.ts';

/** One contact as GET /contacts/{id} answers it: the contact page's data, edited by DataEditor. */
export const fetchContact = (id: string) => call(api.GET('/contacts/{id}', { params: { path: { id } } }));
export type Contact = Awaited<ReturnType<typeof fetchContact>>;
