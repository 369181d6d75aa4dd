/** One entry of the error envelope's `errors`: the field's dot path and the server's message. */
export type FieldError = { field: string; message: string; code?: string; received?: string };

/**
 * The error envelope's field errors in plain words, for the input they belong to. The server's
 * messages are written for developers ("Too small: expected string to have >=1 characters"); a
 * person filling a form reads "Required" or "Use at most 200 characters". Messages the server
 * wrote for people (`custom` codes, and any message that is not schema text) are kept.
 * ApiError.field(name) gives it for one input.
 */
export function plainFieldMessage(error: FieldError): string {
  const { code, message } = error;
  const bound = /([<>]=?)\s*(\d[\d,.]*)/.exec(message);
  const n = bound ? Number(bound[2]!.replaceAll(',', '')) : undefined;
  const unit = /character/.test(message) ? 'characters' : /item|element/.test(message) ? 'items' : undefined;
  switch (code) {
    case 'invalid_type':
      return error.received === 'undefined' || message === 'Required' ? 'Required' : 'This value has the wrong kind (text, number or yes/no)';
    case 'too_small':
      if (n === undefined) return schemaText(message) ? 'Too short' : message;
      if (unit === 'characters') return n <= 1 ? 'Required' : `Use at least ${n} characters`;
      if (unit === 'items') return n <= 1 ? 'Add at least one' : `Add at least ${n}`;
      return `Must be at least ${n}`;
    case 'too_big':
      if (n === undefined) return schemaText(message) ? 'Too long' : message;
      if (unit === 'characters') return `Use at most ${n.toLocaleString()} characters`;
      if (unit === 'items') return `At most ${n.toLocaleString()} allowed`;
      return `Must be at most ${n.toLocaleString()}`;
    case 'invalid_string':
      if (/email/i.test(message)) return 'Enter an email address like name@example.com';
      if (/uuid/i.test(message)) return 'Choose one from the list';
      if (/date|time/i.test(message)) return 'Enter a date and time';
      return schemaText(message) ? 'This is not in the expected format' : message;
    case 'invalid_enum_value':
      return 'Choose one of the offered options';
    default:
      return schemaText(message) ? 'This value is not accepted' : message;
  }
}

/** zod's wording, which names types and operators instead of saying what to do. */
const schemaText = (message: string) => /^(Invalid input|Too (small|big)|Invalid option|Expected|Unrecognized)/i.test(message) || /[<>]=/.test(message);
