import { InlineError, InlineStack, Text } from '@shopify/polaris';
import { SPACE_COLORS, SPACE_COLOR_HEX } from '../../../../contract/constants';
import { L } from '../texts';

/** The palette as a radio group of swatches. */
export function ColorPicker(props: { value: string | null; onChange(c: string): void; disabled?: boolean; error?: string | null }) {
  const errId = 'teamspace-color-error';
  return (
    <div role="radiogroup" aria-label={L.colorLabel} aria-describedby={props.error ? errId : undefined}>
      <Text as="p" variant="bodyMd">{L.colorLabel}</Text>
      <div style={{ marginTop: 4 }}>
        <InlineStack gap="200">
          {SPACE_COLORS.map((c) => {
            const checked = props.value === c;
            return (
              <button
                key={c}
                type="button"
                role="radio"
                aria-checked={checked}
                aria-label={c}
                disabled={props.disabled}
                onClick={() => props.onChange(c)}
                style={{
                  width: 28,
                  height: 28,
                  borderRadius: '50%',
                  background: SPACE_COLOR_HEX[c],
                  border: checked ? '3px solid #fff' : '3px solid transparent',
                  boxShadow: checked ? `0 0 0 2px ${SPACE_COLOR_HEX[c]}` : 'none',
                  cursor: props.disabled ? 'default' : 'pointer',
                  opacity: props.disabled && !checked ? 0.5 : 1,
                  padding: 0,
                }}
              />
            );
          })}
        </InlineStack>
      </div>
      {props.error ? <div style={{ marginTop: 4 }}><InlineError message={props.error} fieldID={errId} /></div> : null}
    </div>
  );
}
