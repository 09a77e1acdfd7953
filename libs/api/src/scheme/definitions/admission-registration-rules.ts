import { isValidPortNum } from '@svc/machinery';
import { matchConditionErrors, policyExpressionErrors, WEBHOOK_CONDITION_ENVIRONMENT } from '../../cel/cel-admission-environment';
import type { ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from '../../kinds/admissionregistration/validating-admission-policy';
import type { MutatingWebhookConfiguration, WebhookClientConfig } from '../../kinds/admissionregistration/webhook-configuration';
import { fieldErrors, type FieldError } from '../../schema/field-error';
import type { ApiObject } from '../kind-definition';
import { as } from './define-kind';

/** The AdmissionReview versions this server speaks. */
const REVIEW_VERSIONS = ['v1'];
/** Kubernetes' admissionregistration/v1 takes only webhooks that say they have no side effects (or none on dry runs). */
const SIDE_EFFECTS_V1 = ['None', 'NoneOnDryRun'];

function clientConfigErrors(config: WebhookClientConfig | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (config === undefined) return errors;
  if ((config.url === undefined) === (config.service === undefined)) {
    errors.push(fieldErrors.required(path, 'exactly one of url or service is required'));
    return errors;
  }
  if (config.url !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(config.url);
    } catch {
      errors.push(fieldErrors.invalid(`${path}.url`, config.url, 'host must be specified'));
    }
    if (url !== undefined) {
      if (url.protocol !== 'https:') errors.push(fieldErrors.invalid(`${path}.url`, config.url, "'https' is the only allowed URL scheme"));
      if (url.username || url.password) errors.push(fieldErrors.invalid(`${path}.url`, config.url, 'user information is not permitted in the URL'));
      if (url.hash) errors.push(fieldErrors.invalid(`${path}.url`, config.url, 'fragments are not permitted in the URL'));
      if (url.search) errors.push(fieldErrors.invalid(`${path}.url`, config.url, 'query parameters are not permitted in the URL'));
    }
  }
  const port = config.service?.port;
  if (typeof port === 'number') {
    const messages = isValidPortNum(port);
    if (messages.length > 0) errors.push(fieldErrors.invalid(`${path}.service.port`, port, `port is not valid: ${messages.join(', ')}`));
  }
  if (config.service?.path !== undefined && !config.service.path.startsWith('/')) {
    errors.push(fieldErrors.invalid(`${path}.service.path`, config.service.path, "must start with a '/'"));
  }
  if (config.caBundle !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(config.caBundle)) {
    errors.push(fieldErrors.invalid(`${path}.caBundle`, '<bytes>', 'must be base64'));
  }
  return errors;
}

/** Kubernetes' ValidateValidatingWebhookConfiguration / ValidateMutatingWebhookConfiguration for v1. */
export function validateWebhookConfiguration(obj: ApiObject): FieldError[] {
  const errors: FieldError[] = [];
  const webhooks = as<MutatingWebhookConfiguration>(obj).webhooks ?? [];
  const names = new Set<string>();
  webhooks.forEach((webhook, i) => {
    const at = `webhooks[${i}]`;
    if (typeof webhook.name !== 'string') return;
    if (names.has(webhook.name)) errors.push(fieldErrors.duplicate(`${at}.name`, webhook.name));
    names.add(webhook.name);
    if (webhook.name.split('.').length < 3)
      errors.push(fieldErrors.invalid(`${at}.name`, webhook.name, 'should be a domain with at least three segments separated by dots'));
    if (typeof webhook.sideEffects === 'string' && !SIDE_EFFECTS_V1.includes(webhook.sideEffects)) {
      errors.push(fieldErrors.notSupported(`${at}.sideEffects`, webhook.sideEffects, SIDE_EFFECTS_V1));
    }
    if (Array.isArray(webhook.admissionReviewVersions) && !webhook.admissionReviewVersions.some((v) => REVIEW_VERSIONS.includes(v))) {
      errors.push(
        fieldErrors.invalid(`${at}.admissionReviewVersions`, webhook.admissionReviewVersions, `must include at least one of ${REVIEW_VERSIONS.join(', ')}`),
      );
    }
    errors.push(...clientConfigErrors(webhook.clientConfig, `${at}.clientConfig`));
    errors.push(...matchConditionErrors(webhook.matchConditions, `${at}.matchConditions`, WEBHOOK_CONDITION_ENVIRONMENT));
  });
  return errors;
}

/** A policy's expressions must compile against the declarations Kubernetes gives them, with cel-go's messages. */
export function validateAdmissionPolicy(obj: ApiObject): FieldError[] {
  const spec = as<ValidatingAdmissionPolicy>(obj).spec;
  const errors: FieldError[] = spec === undefined ? [] : policyExpressionErrors(spec);
  if (spec !== undefined && spec.matchConstraints?.resourceRules === undefined) errors.push(fieldErrors.required('spec.matchConstraints.resourceRules', ''));
  return errors;
}

export function validateAdmissionPolicyBinding(obj: ApiObject): FieldError[] {
  const actions = as<ValidatingAdmissionPolicyBinding>(obj).spec?.validationActions ?? [];
  const errors: FieldError[] = [];
  if (new Set(actions).size !== actions.length) errors.push(fieldErrors.invalid('spec.validationActions', actions, 'must not contain duplicates'));
  if (actions.includes('Deny') && actions.includes('Warn'))
    errors.push(
      fieldErrors.invalid(
        'spec.validationActions',
        actions,
        'must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)',
      ),
    );
  return errors;
}
