import { Button, CopyButton as MantineCopyButton } from '@mantine/core';

/**
 * Copies `value` to the clipboard. `label` names what it copies and starts with "Copy" (the visible
 * text must be part of the accessible name: WCAG 2.5.3).
 */
export function CopyButton({ value, label, size = 'compact-sm' }: { value: string; label: string; size?: string }) {
  return (
    <MantineCopyButton value={value} timeout={1500}>
      {({ copied, copy }) => (
        <Button
          size={size}
          variant={copied ? 'filled' : 'default'}
          color={copied ? 'teal.9' : undefined}
          onClick={copy}
          aria-label={copied ? label.replace(/^Copy/, 'Copied') : label}
          miw={72}
        >
          {copied ? 'Copied' : 'Copy'}
        </Button>
      )}
    </MantineCopyButton>
  );
}
