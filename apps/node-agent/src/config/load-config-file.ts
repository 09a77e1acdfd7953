import { readFile } from 'node:fs/promises';
import { fieldErrorToString, type CompiledKind } from '@svc/api';
import { errorMessage, isRecord } from '@svc/machinery';
import { parse as parseYaml } from 'yaml';
import { GO_DURATION_PATTERN } from './config-schema';
import { credentialProviderConfigKind, type CredentialProviderConfig } from './credential-provider-config';
import { CONFIG_API_VERSION, nodeAgentConfigurationKind, type NodeAgentConfiguration } from './node-agent-configuration';
import { unsupportedSettings } from './unsupported-settings';

/** A configuration file the agent cannot run with; the message is one line naming the file and the field. */
export class ConfigFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigFileError';
  }
}

const DURATION_MISMATCH = `must match the regular expression '${GO_DURATION_PATTERN}'`;
const DURATION_DETAIL = 'must be a duration such as "90s", "1m30s" or "2h"';

function oneLine(path: string, messages: readonly string[]): ConfigFileError {
  const more = messages.length > 1 ? ` (and ${messages.length - 1} more)` : '';
  return new ConfigFileError(`${path}: ${messages[0].replace(/\s*\n\s*/g, ' ')}${more}`);
}

/** Parses, checks the type, rejects unknown fields, defaults and validates one configuration document. */
function decode(
  path: string,
  text: string,
  kindName: string,
  kind: CompiledKind,
  beforeDefaults?: (obj: Record<string, unknown>) => void,
): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 });
  } catch (error) {
    throw oneLine(path, [`cannot be parsed: ${errorMessage(error)}`]);
  }
  if (!isRecord(doc)) throw oneLine(path, [`must hold a ${kindName} object`]);
  if (doc.kind !== kindName) throw oneLine(path, [`kind: must be ${JSON.stringify(kindName)}, got ${JSON.stringify(doc.kind ?? '')}`]);
  if (doc.apiVersion !== CONFIG_API_VERSION) {
    throw oneLine(path, [`apiVersion: must be ${JSON.stringify(CONFIG_API_VERSION)}, got ${JSON.stringify(doc.apiVersion ?? '')}`]);
  }
  const unknown = kind.unknownFields(doc);
  if (unknown.length > 0)
    throw oneLine(
      path,
      unknown.map((field) => `unknown field ${JSON.stringify(field)}`),
    );
  beforeDefaults?.(doc);
  kind.default(doc);
  const errors = kind.validate(doc);
  if (errors.length > 0)
    throw oneLine(
      path,
      errors.map((error) => fieldErrorToString(error).replace(DURATION_MISMATCH, DURATION_DETAIL)),
    );
  return doc;
}

/** Reads `NodeAgentConfiguration` from `path`: defaults applied, validated, and no setting the agent would ignore. */
export async function loadNodeAgentConfiguration(path: string): Promise<NodeAgentConfiguration> {
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw oneLine(path, [`cannot be read: ${errorMessage(error)}`]);
  });
  return parseNodeAgentConfiguration(path, text);
}

export function parseNodeAgentConfiguration(path: string, text: string): NodeAgentConfiguration {
  const config = decode(path, text, 'NodeAgentConfiguration', nodeAgentConfigurationKind(), (doc) => {
    // Spec 3: the report frequency follows an explicitly set update frequency.
    if (doc.nodeStatusUpdateFrequency !== undefined && doc.nodeStatusReportFrequency === undefined) {
      doc.nodeStatusReportFrequency = doc.nodeStatusUpdateFrequency;
    }
  }) as NodeAgentConfiguration;
  const unsupported = unsupportedSettings(config);
  if (unsupported.length > 0) throw oneLine(path, unsupported);
  return config;
}

/** Reads `CredentialProviderConfig` from `path`, required fields checked. */
export async function loadCredentialProviderConfig(path: string): Promise<CredentialProviderConfig> {
  const text = await readFile(path, 'utf8').catch((error: unknown) => {
    throw oneLine(path, [`cannot be read: ${errorMessage(error)}`]);
  });
  return parseCredentialProviderConfig(path, text);
}

export function parseCredentialProviderConfig(path: string, text: string): CredentialProviderConfig {
  return decode(path, text, 'CredentialProviderConfig', credentialProviderConfigKind()) as unknown as CredentialProviderConfig;
}

/** The configuration every default gives (no file). */
export function defaultNodeAgentConfiguration(): NodeAgentConfiguration {
  return parseNodeAgentConfiguration('(defaults)', `apiVersion: ${CONFIG_API_VERSION}\nkind: NodeAgentConfiguration\n`);
}
