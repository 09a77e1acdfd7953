import { builtinScheme, type CustomResourceDefinition } from '@svc/api';
import { checkNames, claimedNames, requestedNames, servable } from './crd-names';

function crd(group: string, names: CustomResourceDefinition['spec']['names'], accepted?: CustomResourceDefinition['spec']['names']): CustomResourceDefinition {
  return {
    metadata: { name: `${names.plural}.${group}` },
    spec: { group, names, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true }] },
    ...(accepted ? { status: { acceptedNames: accepted } } : {}),
  };
}

const widgets = crd('example.com', { plural: 'widgets', kind: 'Widget', shortNames: ['wd'] });

describe('CRD names', () => {
  it('defaults singular and listKind as Kubernetes does', () => {
    expect(requestedNames(widgets)).toEqual({ plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' });
  });

  it('accepts free names', () => {
    const check = checkNames(widgets, claimedNames('example.com', 'widgets.example.com', [], []));
    expect(check.condition).toEqual({ status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
    expect(check.acceptedNames).toEqual(requestedNames(widgets));
    expect(servable(check.acceptedNames)).toBe(true);
  });

  it('refuses names another definition of the group accepted, and only in that group', () => {
    const gadgets = crd(
      'example.com',
      { plural: 'gadgets', kind: 'Gadget', shortNames: ['wd'] },
      { plural: 'gadgets', singular: 'gadget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] },
    );
    const check = checkNames(widgets, claimedNames('example.com', 'widgets.example.com', [gadgets], []));
    // Several conflicts: the last one found names the condition, as in Kubernetes.
    expect(check.condition).toEqual({ status: 'False', reason: 'ListKindConflict', message: '"WidgetList" is already in use' });
    expect(check.acceptedNames).toEqual({ plural: 'widgets', singular: 'widget' });
    expect(servable(check.acceptedNames)).toBe(false);
    const elsewhere = checkNames(
      widgets,
      claimedNames('example.com', 'widgets.example.com', [{ ...gadgets, spec: { ...gadgets.spec, group: 'other.io' } }], []),
    );
    expect(elsewhere.condition.status).toBe('True');
  });

  it('reports a short name conflict on its own', () => {
    const gadgets = crd(
      'example.com',
      { plural: 'gadgets', kind: 'Gadget' },
      { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['wd'] },
    );
    const check = checkNames(widgets, claimedNames('example.com', 'widgets.example.com', [gadgets], []));
    expect(check.condition).toEqual({ status: 'False', reason: 'ShortNamesConflict', message: '"wd" is already in use' });
    expect(check.acceptedNames.shortNames).toBeUndefined();
    expect(check.acceptedNames.kind).toBe('Widget');
  });

  it('keeps names it accepted before even when another definition claims them now', () => {
    const mine = crd('example.com', { plural: 'widgets', kind: 'Widget' }, { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' });
    const rival = crd('example.com', { plural: 'rivals', kind: 'Widget' }, { plural: 'rivals', singular: 'rival', kind: 'Widget', listKind: 'WidgetList' });
    expect(checkNames(mine, claimedNames('example.com', 'widgets.example.com', [rival], [])).condition.status).toBe('True');
  });

  it('keeps the old accepted kind when a renamed kind conflicts', () => {
    const renamed = crd(
      'example.com',
      { plural: 'widgets', kind: 'Gadget' },
      { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    );
    const gadgets = crd(
      'example.com',
      { plural: 'gadgets', kind: 'Gadget' },
      { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    );
    const check = checkNames(renamed, claimedNames('example.com', 'widgets.example.com', [gadgets], []));
    expect(check.condition.reason).toBe('ListKindConflict');
    expect(check.acceptedNames.kind).toBe('Widget');
    expect(check.acceptedNames.listKind).toBe('WidgetList');
  });

  it('refuses names of built-in kinds of the same group', () => {
    const deployments = crd('apps', { plural: 'deployments', kind: 'Deployment2' });
    const check = checkNames(deployments, claimedNames('apps', 'deployments.apps', [], builtinScheme().all()));
    expect(check.condition).toEqual({ status: 'False', reason: 'PluralConflict', message: '"deployments" is already in use' });
  });

  it('refuses a definition whose name is not <plural>.<group>', () => {
    const misnamed = { ...widgets, metadata: { name: 'widget.example.com' } };
    expect(checkNames(misnamed, claimedNames('example.com', 'widget.example.com', [], [])).condition).toMatchObject({ status: 'False', reason: 'InvalidName' });
  });
});
