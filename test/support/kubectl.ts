import { spawn } from 'node:child_process';

export const KUBECTL = '/usr/bin/kubectl';

/** Runs kubectl with the given kubeconfig, stdin closed (it must never wait for a prompt), bounded in time. */
export function kubectl(args: string[], env: Record<string, string>, timeoutMs = 20_000): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(KUBECTL, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else reject(new Error(`kubectl ${args.join(' ')} exited ${code ?? signal}: ${stderr}`));
    });
  });
}
