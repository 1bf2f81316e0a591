import { useQuery } from '@apollo/client/react';
import { useId } from 'react';
import { useFragment as readFragment } from '../../gql';
import { AppWebhookEndpointsQuery, WebhookEndpointFields } from '../developer/webhook-endpoints';
import { endpointLabel } from './endpoint-label';

interface EndpointSelectProps {
  appId: string;
  label: string;
  /** What '' means: every endpoint (a test event) or every enabled one (a recovery). */
  allLabel: string;
  value: string;
  onChange: (endpointId: string) => void;
  /** The wrapper's class: a field of its own (the default), or a row in the recovery form. */
  className?: string;
}

/**
 * Which of an app's endpoints an action goes to (a test event, a recovery): one picker for every such
 * action, so each lists the endpoints the same way. Nothing to choose (so nothing shown) when the app has one.
 */
export function EndpointSelect({ appId, label, allLabel, value, onChange, className = 'field endpoint-choice' }: EndpointSelectProps) {
  const id = useId();
  const data = useQuery(AppWebhookEndpointsQuery, { variables: { appId } }).data;
  const endpoints = readFragment(WebhookEndpointFields, data?.app?.webhookEndpoints ?? []);
  if (endpoints.length < 2) return null;
  return (
    <div className={className}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        <option value="">{allLabel}</option>
        {endpoints.map((endpoint) => (
          <option key={endpoint.id} value={endpoint.id}>
            {endpointLabel(endpoint.url)}
          </option>
        ))}
      </select>
    </div>
  );
}
