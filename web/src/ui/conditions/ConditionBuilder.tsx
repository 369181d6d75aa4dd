import { ActionIcon, Button, Group, NativeSelect, NumberInput, Paper, SegmentedControl, Stack, Text, TextInput } from '@mantine/core';
import { type FieldOption, optionOf } from './fields.ts';
import { type Filter, type Group as FilterGroup, newFilter, newTree, operatorLabel, operatorsFor, type Tree, UNITS, valueInputOf, withOperator } from './tree.ts';

type Props = {
  value: Tree;
  onChange: (tree: Tree) => void;
  options: FieldOption[];
  /** Errors by the server's path of a filter (`groups.0.filters.1`): shown at that filter. */
  errors?: Record<string, string>;
};

/**
 * The visual editor of a condition tree (docs/segments.md): groups joined by "all" (AND) or "any"
 * (OR), each group's filters all required, and a group may hold a nested tree. Every input is
 * named after its place ("Field of filter 2 in group 1") so it can be found by ear and by test.
 */
export function ConditionBuilder({ value, onChange, options, errors = {} }: Props) {
  return <TreeEditor tree={value} onChange={onChange} options={options} errors={errors} path="" name="" />;
}

type TreeProps = { tree: Tree; onChange: (tree: Tree) => void; options: FieldOption[]; errors: Record<string, string>; path: string; name: string; onRemove?: () => void };

function TreeEditor({ tree, onChange, options, errors, path, name, onRemove }: TreeProps) {
  const setGroup = (index: number, group: FilterGroup | undefined) =>
    onChange({ ...tree, groups: group ? tree.groups.map((g, i) => (i === index ? group : g)) : tree.groups.filter((_, i) => i !== index) });
  const label = name ? `Match of nested conditions in ${name}` : 'Match';
  return (
    <Stack gap="sm">
      <Group gap="xs" wrap="wrap">
        <Text size="sm" fw={500} id={`logic-${path || 'root'}`}>
          {name ? 'Nested: contacts matching' : 'Contacts matching'}
        </Text>
        <SegmentedControl
          size="xs"
          aria-label={label}
          value={tree.logic}
          onChange={(logic) => onChange({ ...tree, logic: logic as Tree['logic'] })}
          data={[
            { value: 'AND', label: 'all groups' },
            { value: 'OR', label: 'any group' },
          ]}
        />
        {onRemove && (
          <Button size="xs" variant="subtle" color="red" onClick={onRemove} aria-label={`Remove nested conditions of ${name}`}>
            Remove nested
          </Button>
        )}
      </Group>
      {tree.groups.map((group, index) => {
        const groupName = name ? `${name}, nested group ${index + 1}` : `group ${index + 1}`;
        return (
          <Stack key={index} gap={4}>
            {index > 0 && (
              <Text size="xs" fw={700} c="dimmed" tt="uppercase">
                {tree.logic === 'AND' ? 'and' : 'or'}
              </Text>
            )}
            <GroupEditor
              group={group}
              onChange={(g) => setGroup(index, g)}
              onRemove={tree.groups.length > 1 ? () => setGroup(index, undefined) : undefined}
              options={options}
              errors={errors}
              path={`${path}groups.${index}`}
              name={groupName}
            />
          </Stack>
        );
      })}
      <Group>
        <Button
          size="xs"
          variant="default"
          aria-label={`Add group${name ? ` to ${name}` : ''}`}
          onClick={() => onChange({ ...tree, groups: [...tree.groups, { filters: [newFilter()] }] })}
        >
          Add group
        </Button>
      </Group>
    </Stack>
  );
}

type GroupProps = {
  group: FilterGroup;
  onChange: (group: FilterGroup) => void;
  onRemove?: () => void;
  options: FieldOption[];
  errors: Record<string, string>;
  path: string;
  name: string;
};

function GroupEditor({ group, onChange, onRemove, options, errors, path, name }: GroupProps) {
  const setFilter = (index: number, filter: Filter | undefined) =>
    onChange({ ...group, filters: filter ? group.filters.map((f, i) => (i === index ? filter : f)) : group.filters.filter((_, i) => i !== index) });
  return (
    <Paper withBorder p={{ base: 'xs', sm: 'sm' }} radius="md" component="fieldset" style={{ margin: 0 }} aria-label={capitalize(name)}>
      <Stack gap="xs">
        <Group justify="space-between" gap="xs">
          <Text size="sm" fw={600} component="legend" style={{ float: 'left', padding: 0 }}>
            {capitalize(name)}: every filter must match
          </Text>
          {onRemove && (
            <Button size="xs" variant="subtle" color="red" onClick={onRemove} aria-label={`Remove ${name}`}>
              Remove group
            </Button>
          )}
        </Group>
        {group.filters.map((filter, index) => (
          <FilterRow
            key={index}
            filter={filter}
            onChange={(f) => setFilter(index, f)}
            onRemove={group.filters.length > 1 || group.conditions ? () => setFilter(index, undefined) : undefined}
            options={options}
            error={errors[`${path}.filters.${index}`]}
            name={`filter ${index + 1} in ${name}`}
          />
        ))}
        {group.conditions && (
          <Paper p={{ base: 4, sm: 'sm' }} radius="md" bg="var(--mantine-color-gray-0)">
            <TreeEditor
              tree={group.conditions}
              onChange={(conditions) => onChange({ ...group, conditions })}
              onRemove={group.filters.length > 0 ? () => onChange({ filters: group.filters }) : undefined}
              options={options}
              errors={errors}
              path={`${path}.conditions.`}
              name={name}
            />
          </Paper>
        )}
        <Group gap="xs">
          <Button size="xs" variant="default" aria-label={`Add filter to ${name}`} onClick={() => onChange({ ...group, filters: [...group.filters, newFilter()] })}>
            Add filter
          </Button>
          {!group.conditions && (
            <Button size="xs" variant="default" aria-label={`Add nested group to ${name}`} onClick={() => onChange({ ...group, conditions: newTree() })}>
              Add nested group
            </Button>
          )}
        </Group>
      </Stack>
    </Paper>
  );
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

type FilterProps = {
  filter: Filter;
  onChange: (filter: Filter) => void;
  onRemove?: () => void;
  options: FieldOption[];
  error?: string;
  name: string;
  /** Narrows the operators a field offers, for a caller that takes fewer (a workflow's CONDITION step). */
  allowedOperators?: readonly string[];
};

/** One filter: field, condition and a value input fitting both. Also the whole form of a workflow's CONDITION step. */
export function FilterRow({ filter, onChange, onRemove, options, error, name, allowedOperators }: FilterProps) {
  const field = optionOf(options, filter.field);
  const operators = operatorsFor(filter.field, field.kind).filter((op) => !allowedOperators || allowedOperators.includes(op));
  const groups = [...new Set([...options.map((o) => o.group), field.group])];
  const fieldData = groups.map((group) => ({
    group,
    items: [...options, ...(options.some((o) => o.value === field.value) ? [] : [field])].filter((o) => o.group === group).map((o) => ({ value: o.value, label: o.label })),
  }));
  const input = valueInputOf(filter.operator);

  function chooseField(value: string) {
    const next = optionOf(options, value);
    const ops = operatorsFor(value, next.kind).filter((op) => !allowedOperators || allowedOperators.includes(op));
    const operator = ops.includes(filter.operator) ? filter.operator : ops[0]!;
    const fresh = next.kind === 'boolean' || value === 'subscribed' ? true : next.kind === 'number' || next.kind === 'date' ? undefined : '';
    onChange(withOperator({ field: value, operator: filter.operator, ...(fresh === undefined ? {} : { value: fresh }) }, operator));
  }

  return (
    <Stack gap={4}>
      <Group gap="xs" align="flex-end" wrap="wrap">
        <NativeSelect
          label="Field"
          aria-label={`Field of ${name}`}
          data={fieldData}
          value={filter.field}
          onChange={(e) => chooseField(e.currentTarget.value)}
          miw={170}
          flex="1 1 170px"
        />
        <NativeSelect
          label="Condition"
          aria-label={`Condition of ${name}`}
          data={operators.map((op) => ({ value: op, label: operatorLabel(field.kind, op) }))}
          value={filter.operator}
          onChange={(e) => onChange(withOperator(filter, e.currentTarget.value))}
          miw={170}
          flex="1 1 170px"
        />
        {input === 'value' && <ValueInput filter={filter} kind={field.kind} onChange={onChange} name={name} />}
        {input === 'duration' && (
          <>
            <NumberInput
              label="Amount"
              aria-label={`Amount of ${name}`}
              min={1}
              value={typeof filter.value === 'number' ? filter.value : ''}
              onChange={(v) => onChange({ ...filter, value: typeof v === 'number' ? v : undefined })}
              w={100}
            />
            <NativeSelect
              label="Unit"
              aria-label={`Unit of ${name}`}
              data={UNITS}
              value={filter.unit ?? 'days'}
              onChange={(e) => onChange({ ...filter, unit: e.currentTarget.value as Filter['unit'] })}
              w={120}
            />
          </>
        )}
        {onRemove && (
          <ActionIcon variant="subtle" color="red" size="lg" aria-label={`Remove ${name}`} onClick={onRemove} mb={2}>
            ×
          </ActionIcon>
        )}
      </Group>
      {error && (
        <Text size="sm" c="red.8" role="alert">
          {error}
        </Text>
      )}
    </Stack>
  );
}

function ValueInput({ filter, kind, onChange, name }: { filter: Filter; kind: FieldOption['kind']; onChange: (filter: Filter) => void; name: string }) {
  const label = `Value of ${name}`;
  if (filter.field === 'subscribed' || kind === 'boolean') {
    return (
      <NativeSelect
        label="Value"
        aria-label={label}
        data={[
          { value: 'true', label: 'yes' },
          { value: 'false', label: 'no' },
        ]}
        value={filter.value === false ? 'false' : 'true'}
        onChange={(e) => onChange({ ...filter, value: e.currentTarget.value === 'true' })}
        w={100}
      />
    );
  }
  if (kind === 'number') {
    return (
      <NumberInput
        label="Value"
        aria-label={label}
        value={typeof filter.value === 'number' ? filter.value : ''}
        onChange={(v) => onChange({ ...filter, value: typeof v === 'number' ? v : undefined })}
        w={140}
      />
    );
  }
  if (kind === 'date') {
    return (
      <TextInput
        label="Value"
        aria-label={label}
        type="date"
        value={typeof filter.value === 'string' ? filter.value : ''}
        onChange={(e) => onChange({ ...filter, value: e.currentTarget.value })}
        w={170}
      />
    );
  }
  return (
    <TextInput
      label="Value"
      aria-label={label}
      value={filter.value === undefined ? '' : String(filter.value)}
      onChange={(e) => onChange({ ...filter, value: e.currentTarget.value })}
      miw={160}
      flex="1 1 160px"
    />
  );
}
