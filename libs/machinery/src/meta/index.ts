// The meta/v1 wire types: the one declaration of each. libs/api's schemas are checked against them.
export * from './type-meta';
export * from './object-meta';
export * from './owner-reference';
export * from './managed-fields-entry';
export * from './list-meta';
export * from './list';
export * from './status';
export * from './table';
export * from './watch-event';
export * from './delete-options';
export * from './label-selector';
export * from './condition';
export * from './field-validation';
export * from './group-version-for-discovery';
export * from './resource-version-match';
