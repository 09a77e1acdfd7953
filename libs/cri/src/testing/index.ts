export * from './containerd-process';
export * from './oci-image-archive';
