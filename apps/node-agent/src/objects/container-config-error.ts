/** A container cannot be configured (a missing ConfigMap key, a bad field path): `CreateContainerConfigError`. */
export class ContainerConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ContainerConfigError';
  }
}
