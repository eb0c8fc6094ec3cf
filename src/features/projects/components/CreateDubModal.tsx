// Creating a dub: upload a video (tus, resumes after a dropped connection) or paste a link, choose the
// languages, optionally source/target SRT files, a dictionary and (under More options) the words recognition should
// listen for, check the minutes, start.
// The form's state is useCreateDubForm; its sections are VideoSourceField, LanguageFields and CreateOptionsFields.
import { Banner, BlockStack, Button, ButtonGroup, Modal, Text, TextField } from '@shopify/polaris';
import { CreateOptionsFields } from './CreateOptionsFields';
import { LanguageFields } from './LanguageFields';
import { StoreVideosTab } from './StoreVideosTab';
import { useCreateDubForm, type CreateDubFormProps } from './useCreateDubForm';
import { VideoSourceField } from './VideoSourceField';

export type CreateDubModalProps = CreateDubFormProps;

export function CreateDubModal(props: CreateDubModalProps) {
  const { open, onClose, spaceId, onCreated } = props;
  const f = useCreateDubForm(props);
  const { store, source, upload, submitting, noMinutes, minutes } = f;

  return (
    <Modal
      open={open}
      onClose={f.close}
      title="Translate a video"
      primaryAction={store ? undefined : { content: 'Start translation', onAction: f.submit, loading: submitting, disabled: submitting || noMinutes || !minutes.ok || (source === 'upload' && upload?.status === 'uploading') }}
      secondaryActions={[{ content: 'Cancel', onAction: f.close, disabled: submitting }]}
      footer={noMinutes || !minutes.ok ? <Text as="span" tone="critical" variant="bodySm">{noMinutes ? 'No minutes left to start a translation' : 'Not enough minutes for this video'}</Text> : undefined}
    >
      <Modal.Section>
        <BlockStack gap="400">
          {noMinutes ? (
            <Banner tone="warning" title="You have no minutes left" action={{ content: 'Get more minutes', onAction: f.needMinutes }}>
              <p>Starting a translation uses one minute per minute of video. Get more minutes to start this one.</p>
            </Banner>
          ) : null}
          <ButtonGroup variant="segmented">
            <Button pressed={!store && source === 'upload'} onClick={() => { f.setStore(false); f.setSource('upload'); }}>
              Upload a file
            </Button>
            <Button pressed={!store && source === 'link'} onClick={() => { f.setStore(false); f.setSource('link'); }}>
              Paste a link
            </Button>
            {f.isShop && <Button pressed={store} onClick={() => f.setStore(true)}>From your store</Button>}
          </ButtonGroup>
          {store ? (
            <StoreVideosTab
              spaceId={spaceId} srcOptions={f.srcOptions} dstOptions={f.dstOptions} multiOn={f.multiOn}
              onCreated={(p) => { f.reset(); onCreated(p); }} onBatch={() => { f.reset(); onClose(); }}
            />
          ) : (<>
          <VideoSourceField form={f} />
          <TextField
            label="Project name"
            autoComplete="off"
            value={f.name}
            onChange={(v) => {
              f.setName(v);
              f.setNameTouched(true);
            }}
            onBlur={() => f.setShown((s) => ({ ...s, name: f.errors.name }))}
            error={f.show('name') || undefined}
          />
          <LanguageFields form={f} />
          <CreateOptionsFields form={f} />

          {f.durationSec != null && minutes.ok && (
            <Text as="p" tone="subdued" variant="bodySm">
              This video uses {minutes.needed} {minutes.needed === 1 ? 'minute' : 'minutes'} of your {formatMinutes(minutes.available)} available.
            </Text>
          )}
          {!minutes.ok && (
            <Banner tone="critical" title="Not enough minutes" action={{ content: 'Get more minutes', onAction: f.needMinutes }}>
              <p>{minutes.message}</p>
            </Banner>
          )}
          {f.submitError && (
            <Banner tone="critical" onDismiss={() => f.setSubmitError(null)}>
              <p>{f.submitError}</p>
            </Banner>
          )}
          </>)}
        </BlockStack>
      </Modal.Section>
    </Modal>
  );
}

function formatMinutes(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
