import type { ProjectSummary } from '../../api/session.ts';

export type Role = ProjectSummary['role'];
export const ROLES: Role[] = ['OWNER', 'ADMIN', 'MEMBER'];

/** OWNER and ADMIN manage the project (docs/decisions/accounts.md); a MEMBER reads. */
export const isManager = (role: Role) => role === 'OWNER' || role === 'ADMIN';

export const time = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : '—');

/** A rate as a percentage with the precision complaint thresholds need (0.1 %). */
export const percent = (rate: number) => `${(rate * 100).toLocaleString(undefined, { maximumFractionDigits: rate < 0.01 ? 2 : 1 })} %`;
