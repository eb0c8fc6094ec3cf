// The video of a new dub: a file to upload (drop zone, progress, try again) or a link (its length and title are
// read when the field is left).
import { BlockStack, Button, DropZone, InlineStack, ProgressBar, Spinner, Text, TextField } from '@shopify/polaris';
import { isFileProblem, UPLOAD_TEXTS, uploadPercent } from '../hooks/useVideoUpload';
import type { CreateDubForm } from './useCreateDubForm';

export function VideoSourceField({ form: f }: { form: CreateDubForm }) {
  const { upload, localDur } = f;
  if (f.source !== 'upload') {
    return (
      <TextField
        label="Video link"
        placeholder="https://www.youtube.com/watch?v=..."
        helpText="YouTube, Google Drive or Vimeo"
        autoComplete="off"
        value={f.link}
        onChange={(v) => {
          f.setLink(v);
          f.setShown((s) => ({ ...s, link: undefined }));
        }}
        onBlur={() => void f.checkLink()}
        error={f.show('link') || f.linkInfo?.error || undefined}
        suffix={f.linkInfo?.loading ? <Spinner size="small" accessibilityLabel="Checking the link" /> : undefined}
      />
    );
  }
  return (
    <BlockStack gap="200">
      <DropZone
        label="Video"
        accept="video/*,audio/*"
        type="file"
        allowMultiple={false}
        disabled={f.submitting}
        error={!!f.show('file')}
        onDrop={(_all, accepted) => {
          if (accepted[0]) f.beginUpload(accepted[0]);
        }}
      >
        {upload ? (
          <div style={{ padding: 16 }}>
            <BlockStack gap="100">
              <Text as="p" variant="bodyMd" fontWeight="semibold">{upload.file.name}</Text>
              <Text as="p" variant="bodySm" tone="subdued">
                {formatSize(upload.file.size)}
                {localDur != null ? ` · ${Math.floor(localDur / 60)}:${String(Math.round(localDur % 60)).padStart(2, '0')}` : ''}
                {' · drop another file to replace it'}
              </Text>
            </BlockStack>
          </div>
        ) : (
          <DropZone.FileUpload actionTitle="Choose a video" actionHint="or drop it here (MP4, MOV, WEBM, MP3, WAV)" />
        )}
      </DropZone>
      {upload && (
        <BlockStack gap="100">
          <ProgressBar
            progress={uploadPercent(upload.sent, upload.total)}
            tone={upload.status === 'failed' ? 'critical' : upload.status === 'done' ? 'success' : 'highlight'}
            size="small"
            ariaLabelledBy="upload-progress-label"
          />
          <InlineStack align="space-between">
            <Text as="span" variant="bodySm" tone={upload.status === 'failed' ? 'critical' : 'subdued'} id="upload-progress-label">
              {upload.status === 'failed'
                ? upload.error
                : upload.status === 'done'
                  ? 'Uploaded'
                  : `Uploading ${uploadPercent(upload.sent, upload.total)}%`}
            </Text>
            {upload.status === 'failed' && !isFileProblem(upload.error) && (
              <Button variant="plain" onClick={() => f.beginUpload(upload.file)}>
                Try again
              </Button>
            )}
          </InlineStack>
          {upload.status === 'failed' && isFileProblem(upload.error) ? (
            <Text as="p" variant="bodySm" tone="subdued">{UPLOAD_TEXTS.formats}</Text>
          ) : null}
        </BlockStack>
      )}
      {f.show('file') && <Text as="p" tone="critical">{f.errors.file}</Text>}
    </BlockStack>
  );
}

function formatSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(1)} GB`;
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MB`;
  return `${Math.max(1, Math.round(bytes / 1024))} kB`;
}
