import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConditionError, type ConditionTree, compileCondition, type Filter, type ResolvedSegment, validateConditionTree } from '../../src/conditions/index.ts';

const PROJECT = '11111111-1111-4111-8111-111111111111';
const SEG_A = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
const SEG_B = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
const SEG_S = 'cccccccc-cccc-4ccc-8ccc-cccccccccccc';

const one = (filter: Filter): ConditionTree => ({ logic: 'AND', groups: [{ filters: [filter] }] });

function compile(tree: ConditionTree, segments: Record<string, ResolvedSegment> = {}, params: unknown[] = []) {
  const sql = compileCondition(tree, { projectId: PROJECT, params, segments: new Map(Object.entries(segments)) });
  return { sql, params };
}
const compileFilter = (filter: Filter) => compile(one(filter));

/** Every $n in the SQL refers to an existing param, and each param is referenced. */
function assertPlaceholders(sql: string, params: unknown[]) {
  const used = new Set([...sql.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  for (const n of used) assert.ok(n >= 1 && n <= params.length, `$${n} out of range in ${sql}`);
  for (let n = 1; n <= params.length; n++) assert.ok(used.has(n), `param $${n} unused in ${sql}`);
}

describe('the compiler binds every value', () => {
  const hostile = "x'); DROP TABLE contacts; --";
  const cases: Filter[] = [
    { field: 'email', operator: 'equals', value: hostile },
    { field: 'email', operator: 'contains', value: hostile },
    { field: `data.${hostile}`, operator: 'equals', value: hostile },
    { field: `data.${hostile}`, operator: 'exists' },
    { field: `data.${hostile}`, operator: 'greaterThan', value: hostile },
    { field: `event.${hostile}`, operator: 'triggered' },
    { field: `event.${hostile}`, operator: 'triggeredWithin', value: 3, unit: 'days' },
  ];
  for (const filter of cases) {
    test(`${filter.field.slice(0, 5)} ${filter.operator}: no value in the SQL text`, () => {
      const { sql, params } = compileFilter(filter);
      assert.ok(!sql.includes('DROP'), sql);
      assert.ok(!sql.includes("'x"), sql);
      assertPlaceholders(sql, params);
      assert.ok(
        params.some((p) => typeof p === 'string' && p.toLowerCase().includes('drop table')),
        JSON.stringify(params),
      );
    });
  }

  test('numbering continues after the params already given; the project id is bound once', () => {
    const tree: ConditionTree = {
      logic: 'OR',
      groups: [{ filters: [{ field: 'event.a', operator: 'triggered' }] }, { filters: [{ field: 'event.b', operator: 'notTriggered' }] }],
    };
    const { sql, params } = compile(tree, {}, ['already', 'there']);
    assert.deepEqual(params, ['already', 'there', PROJECT, 'a', 'b']);
    assert.equal(
      sql,
      '(EXISTS (SELECT 1 FROM events e WHERE e.project_id = $3::uuid AND e.name = $4::text AND e.contact_id = c.id) OR ' +
        'NOT EXISTS (SELECT 1 FROM events e WHERE e.project_id = $3::uuid AND e.name = $5::text AND e.contact_id = c.id))',
    );
  });

  test('a tree without subqueries does not bind the project', () => {
    const { params } = compileFilter({ field: 'subscribed', operator: 'equals', value: true });
    assert.deepEqual(params, [true]);
  });
});

describe('every operator compiles to its predicate', () => {
  const expect = (filter: Filter, sql: string | RegExp, params: unknown[]) => {
    const out = compileFilter(filter);
    if (typeof sql === 'string') assert.equal(out.sql, sql);
    else assert.match(out.sql, sql);
    assert.deepEqual(out.params, params);
    assertPlaceholders(out.sql, out.params);
  };

  test('email (case-insensitive: the value is lower-cased; emails are stored lower-cased)', () => {
    expect({ field: 'email', operator: 'equals', value: 'A@X.io' }, 'c.email = $1::text', ['a@x.io']);
    expect({ field: 'email', operator: 'notEquals', value: 'A@X.io' }, 'c.email <> $1::text', ['a@x.io']);
    expect({ field: 'email', operator: 'contains', value: '@X' }, 'strpos(c.email, $1::text) > 0', ['@x']);
    expect({ field: 'email', operator: 'notContains', value: '@X' }, 'strpos(c.email, $1::text) = 0', ['@x']);
  });

  test('subscribed', () => {
    expect({ field: 'subscribed', operator: 'equals', value: false }, 'c.subscribed = $1::boolean', [false]);
    expect({ field: 'subscribed', operator: 'notEquals', value: true }, 'c.subscribed <> $1::boolean', [true]);
  });

  test('createdAt / updatedAt with a day: the whole UTC day', () => {
    const day = ['2024-03-05T00:00:00.000Z', '2024-03-06T00:00:00.000Z'];
    expect({ field: 'createdAt', operator: 'equals', value: '2024-03-05' }, '(c.created_at >= $1::timestamptz AND c.created_at < $2::timestamptz)', day);
    expect({ field: 'createdAt', operator: 'notEquals', value: '2024-03-05' }, '(c.created_at < $1::timestamptz OR c.created_at >= $2::timestamptz)', day);
    expect({ field: 'updatedAt', operator: 'greaterThan', value: '2024-03-05' }, 'c.updated_at >= $1::timestamptz', [day[1]]);
    expect({ field: 'updatedAt', operator: 'greaterThanOrEqual', value: '2024-03-05' }, 'c.updated_at >= $1::timestamptz', [day[0]]);
    expect({ field: 'updatedAt', operator: 'lessThan', value: '2024-03-05' }, 'c.updated_at < $1::timestamptz', [day[0]]);
    expect({ field: 'updatedAt', operator: 'lessThanOrEqual', value: '2024-03-05' }, 'c.updated_at < $1::timestamptz', [day[1]]);
  });

  test('createdAt / updatedAt with a date-time, within and olderThan', () => {
    const at = '2024-03-05T10:00:00.000Z';
    expect({ field: 'createdAt', operator: 'equals', value: '2024-03-05T12:00:00+02:00' }, 'c.created_at = $1::timestamptz', [at]);
    expect({ field: 'createdAt', operator: 'notEquals', value: at }, 'c.created_at <> $1::timestamptz', [at]);
    expect({ field: 'createdAt', operator: 'greaterThan', value: at }, 'c.created_at > $1::timestamptz', [at]);
    expect({ field: 'createdAt', operator: 'greaterThanOrEqual', value: at }, 'c.created_at >= $1::timestamptz', [at]);
    expect({ field: 'createdAt', operator: 'lessThan', value: at }, 'c.created_at < $1::timestamptz', [at]);
    expect({ field: 'createdAt', operator: 'lessThanOrEqual', value: at }, 'c.created_at <= $1::timestamptz', [at]);
    expect({ field: 'createdAt', operator: 'within', value: 2, unit: 'hours' }, "c.created_at >= (now() - $1::double precision * interval '1 hour')", [2]);
    expect({ field: 'updatedAt', operator: 'olderThan', value: 3, unit: 'weeks' }, "c.updated_at < (now() - $1::double precision * interval '1 week')", [3]);
    expect({ field: 'updatedAt', operator: 'within', value: 30, unit: 'minutes' }, /interval '1 minute'/, [30]);
    expect({ field: 'updatedAt', operator: 'within', value: 1, unit: 'days' }, /interval '1 day'/, [1]);
  });

  test('data.<key>: the key is a bound parameter too (alone, or inside a bound jsonb / jsonpath value)', () => {
    expect({ field: 'data.plan', operator: 'exists' }, "(c.data ? $1::text AND jsonb_typeof(c.data -> $1::text) <> 'null')", ['plan']);
    expect({ field: 'data.plan', operator: 'notExists' }, "NOT (c.data ? $1::text AND jsonb_typeof(c.data -> $1::text) <> 'null')", ['plan']);
    expect({ field: 'data.plan', operator: 'equals', value: 'pro' }, 'c.data @> $1::jsonb', ['{"plan":"pro"}']);
    expect({ field: 'data.n', operator: 'equals', value: 3 }, 'c.data @> $1::jsonb', ['{"n":3}']);
    expect({ field: 'data.vip', operator: 'notEquals', value: true }, 'NOT (c.data @> $1::jsonb)', ['{"vip":true}']);
    expect({ field: 'data.plan', operator: 'contains', value: 'PR' }, 'c.data @? $1::jsonpath', ['strict $."plan" ? (@ like_regex "PR" flag "iq")']);
    expect({ field: 'data.plan', operator: 'notContains', value: 'pr' }, '(c.data @? $1::jsonpath) IS NOT TRUE', ['strict $."plan" ? (@ like_regex "pr" flag "iq")']);
    expect({ field: 'data.n', operator: 'greaterThan', value: 5 }, 'c.data @? $1::jsonpath', ['strict $."n" ? (@ > 5)']);
    expect({ field: 'data.n', operator: 'lessThan', value: -0.5 }, 'c.data @? $1::jsonpath', ['strict $."n" ? (@ < -0.5)']);
    expect({ field: 'data.n', operator: 'greaterThanOrEqual', value: 1e21 }, 'c.data @? $1::jsonpath', ['strict $."n" ? (@ >= 1e+21)']);
    expect({ field: 'data.s', operator: 'lessThanOrEqual', value: 'm' }, 'c.data @? $1::jsonpath', ['strict $."s" ? (@ <= "m")']);
    expect({ field: 'data.a"b\\c', operator: 'greaterThan', value: 'x"y' }, 'c.data @? $1::jsonpath', ['strict $."a\\"b\\\\c" ? (@ > "x\\"y")']);
    expect({ field: 'data.seen', operator: 'within', value: 7, unit: 'days' }, /mailroom_try_timestamptz\(c\.data ->> \$1::text\) >= \(now\(\) - \$2::double precision/, [
      'seen',
      7,
    ]);
    expect({ field: 'data.seen', operator: 'olderThan', value: 7, unit: 'days' }, /mailroom_try_timestamptz\(c\.data ->> \$1::text\) < /, ['seen', 7]);
  });

  test('event.<name>: the five activity operators', () => {
    const base = 'EXISTS (SELECT 1 FROM events e WHERE e.project_id = $1::uuid AND e.name = $2::text AND e.contact_id = c.id';
    expect({ field: 'event.signup', operator: 'triggered' }, `${base})`, [PROJECT, 'signup']);
    expect({ field: 'event.signup', operator: 'notTriggered' }, `NOT ${base})`, [PROJECT, 'signup']);
    const window = " AND e.created_at >= (now() - $3::double precision * interval '1 day'))";
    expect({ field: 'event.signup', operator: 'triggeredWithin', value: 2, unit: 'days' }, `${base}${window}`, [PROJECT, 'signup', 2]);
    expect({ field: 'event.signup', operator: 'notTriggeredWithin', value: 2, unit: 'days' }, `NOT ${base}${window}`, [PROJECT, 'signup', 2]);
    expect({ field: 'event.signup', operator: 'triggeredOlderThan', value: 2, unit: 'days' }, `${base} AND e.created_at < (now() - $3::double precision * interval '1 day'))`, [
      PROJECT,
      'signup',
      2,
    ]);
  });

  test('email.<activity> reads the email.<activity> events', () => {
    for (const operator of ['triggered', 'notTriggered']) {
      expect({ field: 'email.opened', operator }, /e\.name = \$2::text/, [PROJECT, 'email.opened']);
    }
    expect({ field: 'email.clicked', operator: 'triggeredWithin', value: 1, unit: 'hours' }, /e\.created_at >=/, [PROJECT, 'email.clicked', 1]);
  });
});

describe('segment references', () => {
  const dynamicA: ResolvedSegment = { type: 'DYNAMIC', condition: one({ field: 'data.plan', operator: 'equals', value: 'pro' }) };

  test('a dynamic segment is its condition compiled in place; not-member is IS NOT TRUE', () => {
    const member = compile(one({ field: `segment.${SEG_A}`, operator: 'memberOfSegment' }), { [SEG_A]: dynamicA });
    assert.equal(member.sql, '(c.data @> $1::jsonb)');
    const not = compile(one({ field: `segment.${SEG_A}`, operator: 'notMemberOfSegment' }), { [SEG_A]: dynamicA });
    assert.equal(not.sql, '((c.data @> $1::jsonb) IS NOT TRUE)');
  });

  test('a static segment is its stored members', () => {
    const { sql, params } = compile(one({ field: `segment.${SEG_S}`, operator: 'memberOfSegment' }), { [SEG_S]: { type: 'STATIC' } });
    assert.equal(sql, 'EXISTS (SELECT 1 FROM segment_members m WHERE m.project_id = $1::uuid AND m.segment_id = $2::uuid AND m.contact_id = c.id)');
    assert.deepEqual(params, [PROJECT, SEG_S]);
    assert.match(compile(one({ field: `segment.${SEG_S}`, operator: 'notMemberOfSegment' }), { [SEG_S]: { type: 'STATIC' } }).sql, /^\(EXISTS .* IS NOT TRUE\)$/);
  });

  test('unknown and circular references are refused at the path of the filter', () => {
    const tree: ConditionTree = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'subscribed', operator: 'equals', value: true },
            { field: `segment.${SEG_B}`, operator: 'memberOfSegment' },
          ],
        },
      ],
    };
    assert.throws(
      () => compile(tree),
      (error: unknown) => error instanceof ConditionError && error.path === 'groups[0].filters[1].field' && /does not exist/.test(error.message),
    );
    // A → B → A
    const segments: Record<string, ResolvedSegment> = {
      [SEG_A]: { type: 'DYNAMIC', condition: one({ field: `segment.${SEG_B}`, operator: 'memberOfSegment' }) },
      [SEG_B]: { type: 'DYNAMIC', condition: one({ field: `segment.${SEG_A}`, operator: 'notMemberOfSegment' }) },
    };
    assert.throws(
      () => compile(one({ field: `segment.${SEG_A}`, operator: 'memberOfSegment' }), segments),
      (error: unknown) => {
        return error instanceof ConditionError && error.path === 'groups[0].filters[0].field' && /circular/.test(error.message);
      },
    );
    // Self: the tree being compiled is segment A's own condition.
    assert.throws(
      () =>
        compileCondition(one({ field: `segment.${SEG_A}`, operator: 'memberOfSegment' }), {
          projectId: PROJECT,
          params: [],
          segments: new Map([[SEG_A, dynamicA]]),
          stack: [SEG_A],
        }),
      /circular/,
    );
    // The same segment twice side by side is not circular.
    const twice: ConditionTree = { logic: 'OR', groups: [0, 1].map(() => ({ filters: [{ field: `segment.${SEG_A}`, operator: 'memberOfSegment' }] })) };
    assert.doesNotThrow(() => compile(twice, { [SEG_A]: dynamicA }));
  });
});

describe('tree shape', () => {
  test('groups join by logic; a group ANDs its filters with its nested conditions', () => {
    const tree: ConditionTree = {
      logic: 'OR',
      groups: [
        {
          filters: [{ field: 'subscribed', operator: 'equals', value: true }],
          conditions: {
            logic: 'OR',
            groups: [{ filters: [{ field: 'email', operator: 'contains', value: 'a' }] }, { filters: [{ field: 'email', operator: 'contains', value: 'b' }] }],
          },
        },
        { filters: [{ field: 'data.x', operator: 'exists' }] },
      ],
    };
    const { sql, params } = compile(tree);
    assert.equal(
      sql,
      "((c.subscribed = $1::boolean AND (strpos(c.email, $2::text) > 0 OR strpos(c.email, $3::text) > 0)) OR (c.data ? $4::text AND jsonb_typeof(c.data -> $4::text) <> 'null'))",
    );
    assert.deepEqual(params, [true, 'a', 'b', 'x']);
    // A group of only `conditions`.
    assert.equal(compile({ logic: 'AND', groups: [{ filters: [], conditions: one({ field: 'subscribed', operator: 'equals', value: true }) }] }).sql, 'c.subscribed = $1::boolean');
  });
});

describe('a group is written cheapest test first', () => {
  test('its data equalities on distinct keys are one containment, bound where the first stands; other tests follow by cost', () => {
    const tree: ConditionTree = {
      logic: 'AND',
      groups: [
        {
          filters: [
            { field: 'event.purchase', operator: 'triggeredWithin', value: 30, unit: 'days' },
            { field: 'data.plan', operator: 'equals', value: 'pro' },
            { field: 'data.age', operator: 'greaterThanOrEqual', value: 30 },
            { field: 'data.country', operator: 'equals', value: 'DE' },
            { field: 'data.plan', operator: 'equals', value: 'team' },
            { field: 'subscribed', operator: 'equals', value: true },
          ],
        },
      ],
    };
    const { sql, params } = compile(tree);
    assert.equal(
      sql,
      '(c.subscribed = $7::boolean AND c.data @> $4::jsonb AND c.data @> $6::jsonb AND c.data @? $5::jsonpath AND ' +
        "EXISTS (SELECT 1 FROM events e WHERE e.project_id = $1::uuid AND e.name = $2::text AND e.contact_id = c.id AND e.created_at >= (now() - $3::double precision * interval '1 day')))",
    );
    assert.deepEqual(params, [PROJECT, 'purchase', 30, '{"plan":"pro","country":"DE"}', 'strict $."age" ? (@ >= 30)', '{"plan":"team"}', true]);
  });
});

describe('validation names the path of the bad element', () => {
  const bad: [unknown, string, RegExp][] = [
    [null, 'condition', /object/],
    [{ logic: 'XOR', groups: [] }, 'logic', /AND or OR/],
    [{ logic: 'AND', groups: [] }, 'groups', /non-empty/],
    [{ logic: 'AND', groups: [{}] }, 'groups[0].filters', /at least one filter/],
    [{ logic: 'AND', groups: [{ filters: 'x' }] }, 'groups[0].filters', /array/],
    [one({ field: 'nope', operator: 'equals', value: 1 }), 'groups[0].filters[0].field', /unknown field/],
    [one({ field: 'email.viewed', operator: 'triggered' }), 'groups[0].filters[0].field', /unknown field/],
    [one({ field: 'segment.not-a-uuid', operator: 'memberOfSegment' }), 'groups[0].filters[0].field', /unknown field/],
    [one({ field: 'email', operator: 'greaterThan', value: 'a' }), 'groups[0].filters[0].operator', /not an operator/],
    [one({ field: 'email', operator: 'equals' }), 'groups[0].filters[0].value', /required/],
    [one({ field: 'subscribed', operator: 'equals', value: 'yes' }), 'groups[0].filters[0].value', /boolean/],
    [one({ field: 'createdAt', operator: 'equals', value: 'yesterday' }), 'groups[0].filters[0].value', /date/],
    [one({ field: 'createdAt', operator: 'within', value: 3 }), 'groups[0].filters[0].unit', /required/],
    [one({ field: 'createdAt', operator: 'within', value: 3, unit: 'years' }), 'groups[0].filters[0].unit', /minutes/],
    [one({ field: 'event.x', operator: 'triggeredWithin', value: '3', unit: 'days' }), 'groups[0].filters[0].value', /number/],
    [one({ field: 'event.x', operator: 'triggeredWithin', value: -1, unit: 'days' }), 'groups[0].filters[0].value', /above 0/],
    [one({ field: 'data.x', operator: 'greaterThan', value: true }), 'groups[0].filters[0].value', /number or a string/],
    [one({ field: 'data.x', operator: 'equals', value: { a: 1 } }), 'groups[0].filters[0].value', /string, number or boolean/],
    [one({ field: 'data.x', operator: 'contains', value: 3 }), 'groups[0].filters[0].value', /string/],
    [
      {
        logic: 'AND',
        groups: [{ filters: [{ field: 'email', operator: 'equals', value: 'a' }], conditions: { logic: 'AND', groups: [{ filters: [{ field: 'data.', operator: 'exists' }] }] } }],
      },
      'groups[0].conditions.groups[0].filters[0].field',
      /unknown field/,
    ],
  ];
  for (const [tree, path, message] of bad) {
    test(path, () => {
      const problem = validateConditionTree(tree);
      assert.ok(problem, 'expected a problem');
      assert.equal(problem.path, path);
      assert.match(problem.message, message);
      assert.throws(
        () => compile(tree as ConditionTree),
        (error: unknown) => error instanceof ConditionError && error.path === path,
      );
    });
  }

  test('valueless operators need no value; valid trees pass', () => {
    assert.equal(validateConditionTree(one({ field: 'event.x', operator: 'triggered' })), null);
    assert.equal(validateConditionTree(one({ field: `segment.${SEG_A}`, operator: 'notMemberOfSegment' })), null);
    assert.equal(validateConditionTree(one({ field: 'data.x', operator: 'notExists' })), null);
    assert.equal(validateConditionTree(one({ field: 'createdAt', operator: 'lessThan', value: '2024-01-01T00:00:00Z' })), null);
  });
});
