// Hidden admin homepage: the app-wide maintenance flag and the warning banner (PUT /api/admin/settings).
import { Banner, BlockStack, Button, Card, Checkbox, FormLayout, Select, Text, TextField } from '@shopify/polaris';
import { useEffect, useState } from 'react';
import { useSWRConfig } from 'swr';
import { errorMessage } from '../../lib/http';
import { local, STORAGE_KEYS } from '../../lib/storage';
import { useSettings } from '../../lib/api/use-settings';
import { useToast } from '../../ui/toasts';
import { saveAppFlags } from './api';

type Severity = 'info' | 'warning' | 'critical';

export function AdminHomeSection() {
  const { settings, key } = useSettings();
  const { mutate } = useSWRConfig();
  const toast = useToast();
  const [maintenance, setMaintenance] = useState(false);
  const [severity, setSeverity] = useState<Severity>('info');
  const [message, setMessage] = useState('');
  const [time, setTime] = useState('');
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    if (!settings) return;
    setMaintenance(settings.features.maintenance);
    const w = settings.features.warning;
    setSeverity(w?.severity ?? 'info');
    setMessage(w?.message ?? '');
    setTime(w?.maintenance_time ? toLocalInput(w.maintenance_time) : '');
  }, [settings]);

  async function save() {
    setSaving(true);
    setError(null);
    try {
      const hasWarning = message.trim() !== '' || time !== '';
      // Keep this browser out of the maintenance screen so the flag can be turned off again.
      if (maintenance) local.setString(STORAGE_KEYS.maintenanceOverride, '1');
      await saveAppFlags({
        maintenance,
        warning: hasWarning
          ? { severity, message: message.trim() || null, maintenance_time: time ? new Date(time).toISOString() : null }
          : null,
      });
      await mutate(key);
      toast.show('App settings saved');
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setSaving(false);
    }
  }

  return (
    <BlockStack gap="400">
      <Card>
        <BlockStack gap="300">
          <Text as="h2" variant="headingMd">
            App settings
          </Text>
          {error ? <Banner tone="critical">{error}</Banner> : null}
          <FormLayout>
            <Checkbox
              label="Maintenance: show the maintenance screen to everyone"
              helpText="This browser keeps access (maintenance_override) so you can turn it off."
              checked={maintenance}
              onChange={setMaintenance}
            />
            <Select
              label="Banner severity"
              value={severity}
              onChange={(v) => setSeverity(v as Severity)}
              options={[
                { label: 'Info', value: 'info' },
                { label: 'Warning', value: 'warning' },
                { label: 'Critical', value: 'critical' },
              ]}
            />
            <TextField label="Banner message" value={message} onChange={setMessage} autoComplete="off" multiline={2} />
            <TextField
              label="Planned maintenance start"
              helpText="With no message, the banner says the service is unavailable from this time for 30 minutes."
              type="datetime-local"
              value={time}
              onChange={setTime}
              autoComplete="off"
            />
            <Button variant="primary" onClick={() => void save()} loading={saving}>
              Save
            </Button>
          </FormLayout>
        </BlockStack>
      </Card>
    </BlockStack>
  );
}

function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
