import { Form } from 'react-bootstrap';
import { useTranslation } from 'react-i18next';

export interface Choice {
  value: string;
  label: string;
}

export interface EditorSelectProps {
  id: string;
  label: string;
  value: string;
  /** Undefined while the choices load (or before the parent selection exists). */
  choices: readonly Choice[] | undefined;
  loading?: boolean;
  failed?: boolean;
  /** Shown when the choices loaded empty. */
  emptyText?: string;
  hint?: string;
  /** Translated message shown under the field (behaviour §5). */
  error?: string | undefined;
  disabled: boolean;
  /** Offer an empty "Choose…" first option (the select then starts with nothing chosen). */
  placeholder?: boolean;
  onChange: (value: string) => void;
  onFocusChange?: (focused: boolean) => void;
}

/** A labelled select (the job editor's, the delivery form's) with its loading, failed, empty, hint and error texts tied to it. */
export const EditorSelect = ({
  id,
  label,
  value,
  choices,
  loading = false,
  failed = false,
  emptyText,
  hint,
  error,
  disabled,
  placeholder = true,
  onChange,
  onFocusChange,
}: EditorSelectProps) => {
  const { t } = useTranslation();
  const status = failed ? t('jobEditor.optionsError') : choices?.length === 0 ? emptyText : undefined;
  const describedBy = [error ? `${id}-error` : null, status ? `${id}-status` : null, hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return (
    <Form.Group controlId={id}>
      <Form.Label>{label}</Form.Label>
      <Form.Select
        value={value}
        disabled={disabled}
        isInvalid={Boolean(error)}
        aria-invalid={Boolean(error)}
        aria-describedby={describedBy || undefined}
        aria-busy={loading}
        onChange={(event) => {
          onChange(event.target.value);
        }}
        onFocus={() => onFocusChange?.(true)}
        onBlur={() => onFocusChange?.(false)}
      >
        {placeholder ? <option value="">{loading ? t('common.loading') : t('jobEditor.choose')}</option> : null}
        {choices?.map((choice) => (
          <option key={choice.value} value={choice.value}>
            {choice.label}
          </option>
        ))}
      </Form.Select>
      <Form.Control.Feedback type="invalid" id={`${id}-error`}>
        {error}
      </Form.Control.Feedback>
      {status ? (
        <Form.Text id={`${id}-status`} className={failed ? 'job-editor-failed d-block' : 'd-block'}>
          {status}
        </Form.Text>
      ) : null}
      {hint ? (
        <Form.Text id={`${id}-hint`} className="d-block">
          {hint}
        </Form.Text>
      ) : null}
    </Form.Group>
  );
};
