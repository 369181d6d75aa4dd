import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ConditionError, type ConditionTree, compileAudience, compileCount, type Filter, segmentMembership } from '../../src/conditions/index.ts';
import type { Db } from '../../src/db/index.ts';
import { BACKFILL_BATCH, fillNarrowCopy, NARROW_COPY_JOB, prepareNarrowCopy } from '../../src/segments/narrow-copy.ts';
import { createProject } from '../kit/accounts.ts';
import { startTestServer, type TestServer } from '../kit/server.ts';

/**
 * Every operator run against a real database (PGlite by default, PostgreSQL with
 * TEST_DATABASE_URL): a small seeded project, each compiled predicate asked which contacts match.
 */
let server: TestServer;
let db: Db;
let P: string; // the project under test
let Q: string; // another project, for isolation
const ids: Record<string, string> = {};
const segments: Record<string, string> = {};

const HOUR = 3_600_000;
// A key and a value full of what SQL, JSON and jsonpath quote or treat specially.
const ODD_KEY = `we"ird\\key'); --`;
const ODD_VALUE = `quo"te\\ $x'`;
const DAY = 24 * HOUR;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

async function contact(project: string, name: string, email: string, subscribed: boolean, data: object, createdAt: string, updatedAt: string) {
  const [row] = await db.query<{ id: string }>(
    `INSERT INTO contacts (project_id, email, subscribed, data, created_at, updated_at)
     VALUES ($1, $2, $3, $4::jsonb, $5, $6) RETURNING id`,
    [project, email, subscribed, JSON.stringify(data), createdAt, updatedAt],
  );
  ids[name] = row!.id;
}

async function event(project: string, who: string, name: string, at: string) {
  await db.query('INSERT INTO events (project_id, contact_id, name, created_at) VALUES ($1, $2, $3, $4)', [project, ids[who], name, at]);
}

async function segment(project: string, label: string, type: 'DYNAMIC' | 'STATIC', condition: ConditionTree | null, members: string[] = []) {
  const [row] = await db.query<{ id: string }>('INSERT INTO segments (project_id, name, type, condition) VALUES ($1, $2, $3, $4::jsonb) RETURNING id', [
    project,
    label,
    type,
    condition ? JSON.stringify(condition) : null,
  ]);
  segments[label] = row!.id;
  for (const member of members) {
    await db.query('INSERT INTO segment_members (project_id, segment_id, contact_id) VALUES ($1, $2, $3)', [project, row!.id, ids[member]]);
  }
}

const one = (filter: Filter): ConditionTree => ({ logic: 'AND', groups: [{ filters: [filter] }] });

/** The names of P's contacts that the tree selects, sorted. */
async function matching(tree: ConditionTree, project = P): Promise<string[]> {
  const params: unknown[] = [];
  const predicate = await compileAudience(db, project, tree, params);
  params.push(project);
  const rows = await db.query<{ id: string }>(`SELECT c.id FROM contacts c WHERE c.project_id = $${params.length}::uuid AND ${predicate}`, params);
  const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
  return rows.map((row) => names[row.id]!).sort();
}

before(async () => {
  server = await startTestServer();
  db = server.deps.db;
  P = (await createProject(server.url)).id;
  Q = (await createProject(server.url)).id;
  await contact(P, 'ann', 'ann@x.io', true, { plan: 'pro', n: 10, s: 'Apple Pie', vip: true, seen: ago(2 * DAY), [ODD_KEY]: ODD_VALUE }, '2024-03-05T10:00:00Z', ago(HOUR));
  await contact(P, 'bob', 'bob@y.io', false, { plan: 'free', n: 3, s: 'banana', vip: false, seen: ago(30 * DAY) }, '2024-03-04T23:59:59Z', ago(10 * DAY));
  await contact(P, 'cy', 'cy@x.io', true, { plan: null, n: '10', seen: 'not a date' }, '2024-03-06T00:00:00Z', ago(21 * DAY));
  await contact(P, 'dee', 'dee@z.io', true, {}, ago(HOUR / 2), ago(HOUR / 2));
  await contact(P, 'eve', 'eve@z.io', false, { plan: ['pro'], n: { a: 1 } }, '2023-01-01T00:00:00Z', ago(100 * DAY));
  await contact(Q, 'qa', 'qa@x.io', true, { plan: 'pro' }, '2024-03-05T10:00:00Z', ago(HOUR));
  await event(P, 'ann', 'purchase', ago(DAY));
  await event(P, 'ann', 'email.opened', ago(HOUR));
  await event(P, 'bob', 'purchase', ago(10 * DAY));
  await event(P, 'cy', 'signup', ago(40 * DAY));
  await event(Q, 'qa', 'purchase', ago(HOUR));
  await segment(P, 'pros', 'DYNAMIC', one({ field: 'data.plan', operator: 'equals', value: 'pro' }));
  await segment(P, 'picked', 'STATIC', null, ['ann', 'cy']);
  await segment(Q, 'other', 'STATIC', null, ['qa']);
});

after(async () => server?.close());

const cases: [Filter, string[]][] = [
  [{ field: 'email', operator: 'equals', value: 'ANN@X.IO' }, ['ann']],
  [{ field: 'email', operator: 'notEquals', value: 'ann@x.io' }, ['bob', 'cy', 'dee', 'eve']],
  [{ field: 'email', operator: 'contains', value: '@X.' }, ['ann', 'cy']],
  [{ field: 'email', operator: 'notContains', value: '@x.' }, ['bob', 'dee', 'eve']],
  [{ field: 'subscribed', operator: 'equals', value: true }, ['ann', 'cy', 'dee']],
  [{ field: 'subscribed', operator: 'notEquals', value: true }, ['bob', 'eve']],
  // A day covers the UTC day: bob (03-04 23:59:59) and cy (03-06 00:00) fall outside 2024-03-05.
  [{ field: 'createdAt', operator: 'equals', value: '2024-03-05' }, ['ann']],
  [{ field: 'createdAt', operator: 'notEquals', value: '2024-03-05' }, ['bob', 'cy', 'dee', 'eve']],
  [{ field: 'createdAt', operator: 'greaterThan', value: '2024-03-05' }, ['cy', 'dee']],
  [{ field: 'createdAt', operator: 'greaterThanOrEqual', value: '2024-03-05' }, ['ann', 'cy', 'dee']],
  [{ field: 'createdAt', operator: 'lessThan', value: '2024-03-05' }, ['bob', 'eve']],
  [{ field: 'createdAt', operator: 'lessThanOrEqual', value: '2024-03-05' }, ['ann', 'bob', 'eve']],
  [{ field: 'createdAt', operator: 'equals', value: '2024-03-05T10:00:00Z' }, ['ann']],
  [{ field: 'createdAt', operator: 'notEquals', value: '2024-03-05T12:00:00+02:00' }, ['bob', 'cy', 'dee', 'eve']],
  [{ field: 'createdAt', operator: 'greaterThan', value: '2024-03-05T10:00:00Z' }, ['cy', 'dee']],
  [{ field: 'createdAt', operator: 'greaterThanOrEqual', value: '2024-03-05T10:00:00Z' }, ['ann', 'cy', 'dee']],
  [{ field: 'createdAt', operator: 'lessThan', value: '2024-03-05T10:00:00Z' }, ['bob', 'eve']],
  [{ field: 'createdAt', operator: 'lessThanOrEqual', value: '2024-03-05T10:00:00Z' }, ['ann', 'bob', 'eve']],
  [{ field: 'createdAt', operator: 'within', value: 1, unit: 'hours' }, ['dee']],
  [{ field: 'createdAt', operator: 'olderThan', value: 1, unit: 'days' }, ['ann', 'bob', 'cy', 'eve']],
  [{ field: 'updatedAt', operator: 'within', value: 120, unit: 'minutes' }, ['ann', 'dee']],
  [{ field: 'updatedAt', operator: 'olderThan', value: 1, unit: 'weeks' }, ['bob', 'cy', 'eve']],
  [{ field: 'updatedAt', operator: 'within', value: 14, unit: 'days' }, ['ann', 'bob', 'dee']],
  // data.<key>: null counts as absent; an array is present but equal to no primitive.
  [{ field: 'data.plan', operator: 'exists' }, ['ann', 'bob', 'eve']],
  [{ field: 'data.plan', operator: 'notExists' }, ['cy', 'dee']],
  [{ field: 'data.plan', operator: 'equals', value: 'pro' }, ['ann']],
  [{ field: 'data.plan', operator: 'notEquals', value: 'pro' }, ['bob', 'cy', 'dee', 'eve']],
  [{ field: 'data.n', operator: 'equals', value: 10 }, ['ann']],
  [{ field: 'data.n', operator: 'equals', value: '10' }, ['cy']],
  [{ field: 'data.vip', operator: 'equals', value: false }, ['bob']],
  [{ field: 'data.vip', operator: 'notEquals', value: true }, ['bob', 'cy', 'dee', 'eve']],
  [{ field: 'data.s', operator: 'contains', value: 'PIE' }, ['ann']],
  [{ field: 'data.s', operator: 'notContains', value: 'an' }, ['ann', 'cy', 'dee', 'eve']],
  [{ field: 'data.n', operator: 'greaterThan', value: 5 }, ['ann']],
  [{ field: 'data.n', operator: 'lessThan', value: 5 }, ['bob']],
  [{ field: 'data.n', operator: 'greaterThanOrEqual', value: 3 }, ['ann', 'bob']],
  [{ field: 'data.n', operator: 'lessThanOrEqual', value: 10 }, ['ann', 'bob']],
  // Strings compare as strings: "10" < "2".
  [{ field: 'data.n', operator: 'lessThan', value: '2' }, ['cy']],
  [{ field: 'data.s', operator: 'greaterThan', value: 'b' }, ['bob']],
  // By code point, not by a language's collation: "A" (U+0041) sorts before "a" (U+0061).
  [{ field: 'data.s', operator: 'greaterThan', value: 'a' }, ['bob']],
  [{ field: 'data.seen', operator: 'within', value: 7, unit: 'days' }, ['ann']],
  [{ field: 'data.seen', operator: 'olderThan', value: 7, unit: 'days' }, ['bob']],
  [{ field: `data.${ODD_KEY}`, operator: 'equals', value: ODD_VALUE }, ['ann']],
  [{ field: `data.${ODD_KEY}`, operator: 'exists' }, ['ann']],
  [{ field: `data.${ODD_KEY}`, operator: 'contains', value: 'TE\\ $X' }, ['ann']],
  [{ field: `data.${ODD_KEY}`, operator: 'contains', value: '.' }, []],
  [{ field: `data.${ODD_KEY}`, operator: 'greaterThan', value: 'quo' }, ['ann']],
  [{ field: 'event.purchase', operator: 'triggered' }, ['ann', 'bob']],
  [{ field: 'event.purchase', operator: 'notTriggered' }, ['cy', 'dee', 'eve']],
  [{ field: 'event.purchase', operator: 'triggeredWithin', value: 2, unit: 'days' }, ['ann']],
  [{ field: 'event.purchase', operator: 'notTriggeredWithin', value: 2, unit: 'days' }, ['bob', 'cy', 'dee', 'eve']],
  [{ field: 'event.purchase', operator: 'triggeredOlderThan', value: 2, unit: 'days' }, ['bob']],
  [{ field: 'email.opened', operator: 'triggered' }, ['ann']],
  [{ field: 'email.opened', operator: 'notTriggered' }, ['bob', 'cy', 'dee', 'eve']],
  [{ field: 'email.opened', operator: 'triggeredWithin', value: 2, unit: 'hours' }, ['ann']],
  [{ field: 'email.opened', operator: 'notTriggeredWithin', value: 30, unit: 'minutes' }, ['ann', 'bob', 'cy', 'dee', 'eve']],
  [{ field: 'email.opened', operator: 'triggeredOlderThan', value: 30, unit: 'minutes' }, ['ann']],
];

describe('each operator selects the right contacts', () => {
  for (const [filter, expected] of cases) {
    const label = `${filter.field} ${filter.operator}${filter.value === undefined ? '' : ` ${JSON.stringify(filter.value)}`}${filter.unit ? ` ${filter.unit}` : ''}`;
    test(label, async () => assert.deepEqual(await matching(one(filter)), expected));
  }

  test('segment membership: dynamic (live condition) and static (stored members)', async () => {
    assert.deepEqual(await matching(one({ field: `segment.${segments.pros}`, operator: 'memberOfSegment' })), ['ann']);
    assert.deepEqual(await matching(one({ field: `segment.${segments.pros}`, operator: 'notMemberOfSegment' })), ['bob', 'cy', 'dee', 'eve']);
    assert.deepEqual(await matching(one({ field: `segment.${segments.picked}`, operator: 'memberOfSegment' })), ['ann', 'cy']);
    assert.deepEqual(await matching(one({ field: `segment.${segments.picked}`, operator: 'notMemberOfSegment' })), ['bob', 'dee', 'eve']);
  });

  test('segmentMembership is the same predicate; 404 for an unknown segment', async () => {
    for (const [label, expected] of [
      ['pros', ['ann']],
      ['picked', ['ann', 'cy']],
    ] as const) {
      const params: unknown[] = [P];
      const predicate = await segmentMembership(db, P, segments[label]!, params);
      const rows = await db.query<{ email: string }>(`SELECT c.email FROM contacts c WHERE c.project_id = $1 AND ${predicate} ORDER BY c.email`, params);
      assert.deepEqual(
        rows.map((row) => row.email.split('@')[0]),
        expected,
      );
    }
    await assert.rejects(segmentMembership(db, P, segments.other!, []), (error: any) => error.code === 'NOT_FOUND');
  });
});

/** A group with nested conditions: subscribed, and signed up or data.n over 5. */
const SUBSCRIBED_AND_ACTIVE: ConditionTree['groups'][number] = {
  filters: [{ field: 'subscribed', operator: 'equals', value: true }],
  conditions: {
    logic: 'OR',
    groups: [{ filters: [{ field: 'event.signup', operator: 'triggered' }] }, { filters: [{ field: 'data.n', operator: 'greaterThan', value: 5 }] }],
  },
};

describe('trees', () => {
  test('AND, OR and nested conditions', async () => {
    const tree: ConditionTree = {
      logic: 'OR',
      groups: [SUBSCRIBED_AND_ACTIVE, { filters: [{ field: 'email', operator: 'contains', value: 'eve' }] }],
    };
    assert.deepEqual(await matching(tree), ['ann', 'cy', 'eve']);
    assert.deepEqual(await matching({ ...tree, logic: 'AND' }), []);
  });

  test('several data equalities in a group select what each selects alone, whatever else the group holds', async () => {
    const and = (...filters: Filter[]): ConditionTree => ({ logic: 'AND', groups: [{ filters }] });
    // Each equality alone, then the group: the group is the intersection of the singles.
    const group: Filter[] = [
      { field: 'event.purchase', operator: 'triggered' },
      { field: 'data.plan', operator: 'equals', value: 'pro' },
      { field: 'data.n', operator: 'greaterThanOrEqual', value: 3 },
      { field: 'data.vip', operator: 'equals', value: true },
      { field: 'subscribed', operator: 'equals', value: true },
    ];
    assert.deepEqual(await matching(and(...group)), ['ann']);
    assert.deepEqual(await matching(and({ field: 'data.plan', operator: 'equals', value: 'free' }, { field: 'data.vip', operator: 'equals', value: false })), ['bob']);
    assert.deepEqual(await matching(and({ field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'data.vip', operator: 'equals', value: false })), []);
    // A key named twice with two values: nobody holds both.
    assert.deepEqual(await matching(and({ field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'data.plan', operator: 'equals', value: 'free' })), []);
    assert.deepEqual(await matching(and({ field: 'data.plan', operator: 'equals', value: 'pro' }, { field: 'data.plan', operator: 'equals', value: 'pro' })), ['ann']);
    // A key that is special to JavaScript objects, and one that is special to SQL and jsonpath.
    assert.deepEqual(await matching(and({ field: 'data.__proto__', operator: 'equals', value: 'x' }, { field: 'data.plan', operator: 'equals', value: 'pro' })), []);
    assert.deepEqual(await matching(and({ field: `data.${ODD_KEY}`, operator: 'equals', value: ODD_VALUE }, { field: 'data.n', operator: 'equals', value: 10 })), ['ann']);
    // Under OR, each group keeps its own equalities.
    const either: ConditionTree = {
      logic: 'OR',
      groups: [
        {
          filters: [
            { field: 'data.plan', operator: 'equals', value: 'free' },
            { field: 'data.n', operator: 'equals', value: 3 },
          ],
        },
        {
          filters: [
            { field: 'data.n', operator: 'equals', value: '10' },
            { field: 'event.signup', operator: 'triggered' },
          ],
        },
      ],
    };
    assert.deepEqual(await matching(either), ['bob', 'cy']);
  });

  test('another project sees only its own contacts, events and segments', async () => {
    assert.deepEqual(await matching(one({ field: 'event.purchase', operator: 'triggeredWithin', value: 2, unit: 'hours' })), []);
    assert.deepEqual(await matching(one({ field: 'email', operator: 'contains', value: 'qa' })), []);
    await assert.rejects(matching(one({ field: `segment.${segments.other}`, operator: 'memberOfSegment' })), (error: unknown) => {
      return error instanceof ConditionError && error.path === 'groups[0].filters[0].field' && /does not exist/.test(error.message);
    });
    assert.deepEqual(await matching(one({ field: `segment.${segments.other}`, operator: 'memberOfSegment' }), Q), ['qa']);
  });

  test('circular references through stored segments are refused', async () => {
    await segment(P, 'loopA', 'DYNAMIC', one({ field: 'subscribed', operator: 'equals', value: true }));
    await segment(P, 'loopB', 'DYNAMIC', one({ field: `segment.${segments.loopA}`, operator: 'memberOfSegment' }));
    await db.query('UPDATE segments SET condition = $3::jsonb WHERE project_id = $1 AND id = $2', [
      P,
      segments.loopA,
      JSON.stringify(one({ field: `segment.${segments.loopB}`, operator: 'memberOfSegment' })),
    ]);
    await assert.rejects(matching(one({ field: `segment.${segments.loopA}`, operator: 'memberOfSegment' })), /circular/);
    // A segment's own new condition referring to itself through another segment.
    const params: unknown[] = [];
    const selfRef = one({ field: `segment.${segments.loopB}`, operator: 'memberOfSegment' });
    await assert.rejects(compileAudience(db, P, selfRef, params, { segmentId: segments.loopA }), /circular/);
  });
});

/**
 * The narrow copy (docs/decisions/segments.md, "The narrow copy"): once a project's data keys have
 * ready slots, a count reads `contact_slots` instead of `contacts`, and must select exactly the
 * contacts the jsonb tests above select. Not kept on Citus, where every count reads contacts.data:
 * there the same cases check that no count chose the copy.
 */
describe('the narrow copy selects what contacts.data selects', () => {
  const onCitus = () => server.deps.config.databaseDistribution === 'citus';
  // On Citus no slot is ever given (docs/decisions/segments.md): every count must read contacts.
  const copied = () => (onCitus() ? 'contacts' : 'contact_slots');
  const keys = ['plan', 'n', 's', 'vip', 'seen', ODD_KEY];
  const allKeys = (project: string) =>
    prepareNarrowCopy(server.deps, project, { logic: 'AND', groups: [{ filters: keys.map((key) => ({ field: `data.${key}`, operator: 'exists' })) }] });

  /** The names of the project's contacts the tree selects, counted the way a segment count is. */
  async function counted(tree: ConditionTree, project = P): Promise<{ table: string; names: string[] }> {
    const params: unknown[] = [];
    const { table, predicate } = await compileCount(db, project, tree, params);
    params.push(project);
    const rows = await db.query<{ id: string }>(`SELECT c.id FROM ${table} c WHERE c.project_id = $${params.length}::uuid AND ${predicate}`, params);
    const names = Object.fromEntries(Object.entries(ids).map(([name, id]) => [id, name]));
    return { table, names: rows.map((row) => names[row.id] ?? row.id).sort() };
  }

  before(async () => {
    await allKeys(P);
  });

  for (const [filter, expected] of cases) {
    const label = `${filter.field} ${filter.operator}${filter.value === undefined ? '' : ` ${JSON.stringify(filter.value)}`}${filter.unit ? ` ${filter.unit}` : ''}`;
    test(`narrow: ${label}`, async () => {
      const narrow = !onCitus() && !['email', 'updatedAt'].includes(filter.field);
      const { table, names } = await counted(one(filter));
      assert.equal(table, narrow ? 'contact_slots' : 'contacts');
      assert.deepEqual(names, expected);
    });
  }

  test('narrow: segments, trees and groups of equalities', async () => {
    const member = (label: string, operator = 'memberOfSegment') => one({ field: `segment.${segments[label]}`, operator });
    assert.deepEqual(await counted(member('pros')), { table: copied(), names: ['ann'] });
    assert.deepEqual(await counted(member('pros', 'notMemberOfSegment')), { table: copied(), names: ['bob', 'cy', 'dee', 'eve'] });
    assert.deepEqual(await counted(member('picked')), { table: copied(), names: ['ann', 'cy'] });
    const tree: ConditionTree = {
      logic: 'OR',
      groups: [
        SUBSCRIBED_AND_ACTIVE,
        {
          filters: [
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'data.vip', operator: 'equals', value: true },
            { field: 'data.n', operator: 'equals', value: 10.0 },
          ],
        },
        {
          filters: [
            { field: 'createdAt', operator: 'lessThan', value: '2024-01-01' },
            { field: 'data.plan', operator: 'exists' },
          ],
        },
      ],
    };
    assert.deepEqual(await counted(tree), { table: copied(), names: ['ann', 'cy', 'eve'] });
    // A key without a slot, or a field the copy does not hold, is counted over contacts.
    assert.deepEqual(await counted(one({ field: 'data.unslotted', operator: 'notExists' })), { table: 'contacts', names: ['ann', 'bob', 'cy', 'dee', 'eve'] });
    const withEmail: ConditionTree = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'data.plan', operator: 'exists' },
            { field: 'email', operator: 'contains', value: 'x.io' },
          ],
        },
      ],
    };
    assert.deepEqual(await counted(withEmail), { table: 'contacts', names: ['ann'] });
  });

  test('narrow: every later write is copied: insert, data and subscription changes, delete', async () => {
    const R = (await createProject(server.url)).id;
    await allKeys(R);
    const at = '2025-05-05T00:00:00Z';
    await contact(R, 'r1', 'r1@x.io', true, { plan: 'pro', s: 'Ελληνικά και кириллица', n: 1 }, at, at);
    await contact(R, 'r2', 'r2@x.io', true, { plan: 'team', s: '日本語のテキスト', n: 2 }, at, at);
    const pro = one({ field: 'data.plan', operator: 'equals', value: 'pro' });
    assert.deepEqual(await counted(pro, R), { table: copied(), names: ['r1'] });
    assert.deepEqual((await counted(one({ field: 'data.s', operator: 'contains', value: 'КИРИЛЛ' }), R)).names, ['r1']);
    assert.deepEqual((await counted(one({ field: 'data.s', operator: 'contains', value: 'テキスト' }), R)).names, ['r2']);
    // One statement writing several contacts: the copy follows each.
    await db.query(`UPDATE contacts SET data = data || jsonb_build_object('plan', CASE WHEN data->>'plan' = 'pro' THEN 'team' ELSE 'pro' END) WHERE project_id = $1`, [R]);
    assert.deepEqual((await counted(pro, R)).names, ['r2']);
    await db.query('UPDATE contacts SET subscribed = false WHERE project_id = $1 AND id = $2', [R, ids.r2]);
    assert.deepEqual((await counted(one({ field: 'subscribed', operator: 'equals', value: true }), R)).names, ['r1']);
    // An upsert that finds the contact (the import's and the API's way) is copied as an update.
    await db.query(
      `INSERT INTO contacts (project_id, email, subscribed, data) VALUES ($1, 'r1@x.io', true, '{"plan": "pro", "n": 7}')
       ON CONFLICT (project_id, email) DO UPDATE SET data = excluded.data`,
      [R],
    );
    assert.deepEqual((await counted(one({ field: 'data.n', operator: 'greaterThan', value: 5 }), R)).names, ['r1']);
    assert.deepEqual((await counted(one({ field: 'data.s', operator: 'notExists' }), R)).names, ['r1']);
    await db.query('DELETE FROM contacts WHERE project_id = $1 AND id = $2', [R, ids.r1]);
    assert.deepEqual(await counted(one({ field: 'data.plan', operator: 'exists' }), R), { table: copied(), names: ['r2'] });
    const [left] = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM contact_slots WHERE project_id = $1', [R]);
    assert.equal(left!.n, onCitus() ? 0 : 1);
  });

  test('narrow: a write still open when a slot is given is copied once it commits, not lost to the backfill', async (t) => {
    if (onCitus()) return t.skip('Citus keeps no narrow copy, so there is no backfill to race (docs/decisions/segments.md)');
    const W = (await createProject(server.url)).id;
    const at = '2025-06-01T00:00:00Z';
    await contact(W, 'w1', 'w1@x.io', true, { stage: 'lead' }, at, at);
    await contact(W, 'w2', 'w2@x.io', true, { stage: 'lead' }, at, at);
    // The write's statement runs before the slot exists (so its trigger copies nothing), and its
    // transaction stays open while the slot is given and the backfill starts.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => {
      wrote = resolve;
    });
    const writer = db.transaction(async (tx) => {
      await tx.query(`UPDATE contacts SET data = '{"stage": "customer"}' WHERE project_id = $1 AND id = $2`, [W, ids.w1]);
      wrote();
      await gate;
    });
    await written;
    let filled = false;
    const filling = fillNarrowCopy(db, W, ['stage']).then(() => {
      filled = true;
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(filled, false, 'the backfill must wait for the open write');
    } finally {
      release();
      await writer;
      await filling;
    }
    const customer = one({ field: 'data.stage', operator: 'equals', value: 'customer' });
    assert.deepEqual(await counted(customer, W), { table: copied(), names: ['w1'] });
    assert.deepEqual((await counted(one({ field: 'data.stage', operator: 'equals', value: 'lead' }), W)).names, ['w2']);
  });

  test(`narrow: a project of more than one batch (${BACKFILL_BATCH} contacts) is filled by the background job`, async () => {
    const S = (await createProject(server.url)).id;
    const total = BACKFILL_BATCH + 1_500;
    await db.query(
      `INSERT INTO contacts (project_id, email, subscribed, data)
       SELECT $1, 'c' || i || '@batch.test', true, jsonb_build_object('tier', CASE WHEN i % 3 = 0 THEN 'gold' ELSE 'silver' END, 'score', i)
         FROM generate_series(1, $2::int) AS i`,
      [S, total],
    );
    const gold = one({ field: 'data.tier', operator: 'equals', value: 'gold' });
    await prepareNarrowCopy(server.deps, S, gold);
    const countGold = async () => {
      const params: unknown[] = [];
      const { table, predicate } = await compileCount(db, S, gold, params);
      params.push(S);
      const [row] = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} c WHERE c.project_id = $${params.length}::uuid AND ${predicate}`, params);
      return { table, n: row!.n };
    };
    if (onCitus()) {
      // No slot, no job: the count reads contacts.
      assert.equal((await db.query('SELECT 1 FROM contact_slot_keys WHERE project_id = $1', [S])).length, 0);
      assert.deepEqual(await countGold(), { table: 'contacts', n: Math.floor(total / 3) });
      return;
    }
    // The first batch is copied at once; the slot is not read until the job has copied the rest.
    const [pending] = await db.query<{ ready: boolean }>('SELECT ready FROM contact_slot_keys WHERE project_id = $1', [S]);
    assert.equal(pending!.ready, false);
    assert.equal((await counted(gold, S)).table, 'contacts');
    const jobs = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'projectId' = $2`, [NARROW_COPY_JOB, S]);
    assert.equal(jobs[0]!.n, 1);
    const deadline = Date.now() + 60_000;
    while ((await db.query<{ ready: boolean }>('SELECT ready FROM contact_slot_keys WHERE project_id = $1 AND ready', [S])).length === 0) {
      assert.ok(Date.now() < deadline, 'the narrow copy job did not finish within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.deepEqual(await countGold(), { table: 'contact_slots', n: Math.floor(total / 3) });
  });
});
