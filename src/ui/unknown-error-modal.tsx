// Unknown Error modal: 'Please contact the support chat or email us at {email}.'
import { Modal, Text } from '@shopify/polaris';
import { useAtom } from 'jotai';
import { SUPPORT_EMAIL } from '../../contract/constants';
import { TEXT } from '../../contract/errors';
import { unknownErrorOpenAtom } from '../lib/state';

export const UNKNOWN_ERROR_TITLE = 'Unknown Error';

export function UnknownErrorModal() {
  const [open, setOpen] = useAtom(unknownErrorOpenAtom);
  const [before] = TEXT.unknownError(SUPPORT_EMAIL).split(SUPPORT_EMAIL);
  return (
    <Modal
      open={open}
      onClose={() => setOpen(false)}
      title={UNKNOWN_ERROR_TITLE}
      primaryAction={{ content: 'Close', onAction: () => setOpen(false) }}
    >
      <Modal.Section>
        <Text as="p">
          {before}
          <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>.
        </Text>
      </Modal.Section>
    </Modal>
  );
}
