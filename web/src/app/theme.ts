import { type CSSVariablesResolver, createTheme, defaultVariantColorsResolver, Modal, parseThemeColor, type VariantColorsResolver } from '@mantine/core';

// Light, subtle and outline variants (alerts, secondary buttons) write shade 6–8 on a pale tint: under 4.5:1 for several
// palettes. Shade 9 on shade 0 keeps WCAG AA contrast, which axe checks on every page.
const variantColorResolver: VariantColorsResolver = (input) => {
  const colors = defaultVariantColorsResolver(input);
  if (input.variant === 'light' || input.variant === 'subtle' || input.variant === 'outline') {
    const parsed = parseThemeColor({ color: input.color ?? input.theme.primaryColor, theme: input.theme });
    if (parsed.isThemeColor && parsed.color !== 'gray' && parsed.color !== 'dark') {
      // Under the pointer too (as after a click that opened a dialog): Mantine's default hover tint
      // leaves shade 9 at 3.75:1 for red.
      const pale = `var(--mantine-color-${parsed.color}-0)`;
      const tint = input.variant === 'light' ? { background: pale, hover: pale } : input.variant === 'subtle' ? { hover: pale } : {};
      const border = input.variant === 'outline' ? { border: `1px solid var(--mantine-color-${parsed.color}-9)` } : {};
      return { ...colors, ...tint, ...border, color: `var(--mantine-color-${parsed.color}-9)` };
    }
  }
  return colors;
};

export const theme = createTheme({
  primaryColor: 'indigo',
  // White on shade 9 keeps 4.5:1 for every palette used here (on shade 6, red and teal do not).
  primaryShade: 9,
  fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif',
  fontFamilyMonospace: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
  defaultRadius: 'sm',
  focusRing: 'auto',
  respectReducedMotion: true,
  variantColorResolver,
  components: {
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});

// Mantine's default dimmed and placeholder greys are under 4.5:1 on white (WCAG AA).
export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-placeholder': 'var(--mantine-color-gray-7)',
    // Field errors: red 6 is 3.3:1 on white.
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    // The active nav link under the pointer: its default tint leaves the label at 4.1:1.
    '--mantine-primary-color-light-hover': 'var(--mantine-color-indigo-1)',
  },
  dark: {},
});
