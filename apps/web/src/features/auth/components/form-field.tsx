import { Form } from 'react-bootstrap';
import type { HTMLInputAutoCompleteAttribute } from 'react';

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onValueChange: (value: string) => void;
  /** Already translated. */
  error?: string | undefined;
  type?: 'text' | 'email' | 'password';
  autoComplete?: HTMLInputAutoCompleteAttribute;
  /** Identifiers (organization, username) are not words: no capitalising or spell-checking on phones. */
  identifier?: boolean;
}

/** A labelled input whose error is announced and tied to it (aria-describedby), in Bootstrap's invalid style. */
export const FormField = ({ id, label, value, onValueChange, error, type = 'text', autoComplete, identifier = false }: FieldProps) => (
  <Form.Group className="mb-3" controlId={id}>
    <Form.Label>{label}</Form.Label>
    <Form.Control
      type={type}
      value={value}
      onChange={(event) => {
        onValueChange(event.target.value);
      }}
      autoComplete={autoComplete}
      autoCapitalize={identifier ? 'none' : undefined}
      spellCheck={identifier ? false : undefined}
      isInvalid={Boolean(error)}
      aria-invalid={Boolean(error)}
      aria-describedby={error ? `${id}-error` : undefined}
    />
    <Form.Control.Feedback type="invalid" id={`${id}-error`}>
      {error}
    </Form.Control.Feedback>
  </Form.Group>
);
