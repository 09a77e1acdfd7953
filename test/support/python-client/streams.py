"""What the official Python client (Debian's python3-kubernetes) gets from the API server.

Reads the kubeconfig named by KUBECONFIG and prints one JSON object: the pods it lists, a ConfigMap
written and read back, the events of a short watch, an exec without stdin, an interactive exec with
stdin and no terminal, and a port-forward to the pod `web`.
"""
import json
import time

from kubernetes import client, config, watch
from kubernetes.stream import portforward, stream

NAMESPACE = "default"
TIMEOUT = 15


def interactive_exec(api):
    resp = stream(api.connect_get_namespaced_pod_exec, "talker", NAMESPACE, command=["/bin/sh"],
                  stderr=True, stdin=True, stdout=True, tty=False, _preload_content=False)
    try:
        resp.write_stdin("echo test string 1\n")
        first = resp.readline_stdout(timeout=TIMEOUT)
        resp.write_stdin("echo test string 2 >&2\n")
        second = resp.readline_stderr(timeout=TIMEOUT)
        resp.write_stdin("exit 3\n")
        deadline = time.time() + TIMEOUT
        while resp.is_open() and time.time() < deadline:
            resp.update(timeout=1)
        return {"stdout": first, "stderr": second, "returncode": resp.returncode}
    finally:
        resp.close()


def forward(api):
    pf = portforward(api.connect_get_namespaced_pod_portforward, "web", NAMESPACE, ports="8080")
    sock = pf.socket(8080)
    sock.setblocking(True)
    sock.settimeout(TIMEOUT)
    sock.sendall(b"GET / HTTP/1.0\r\nHost: web\r\n\r\n")
    data = b""
    while True:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    sock.close()
    return {"response": data.decode("utf-8", "replace"), "error": pf.error(8080)}


def main():
    config.load_kube_config()
    api = client.CoreV1Api()
    out = {"pods": sorted(p.metadata.name for p in api.list_namespaced_pod(NAMESPACE).items)}
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="from-python"), data={"written": "by python"})
    api.create_namespaced_config_map(NAMESPACE, body)
    out["configMap"] = api.read_namespaced_config_map("from-python", NAMESPACE).data
    api.delete_namespaced_config_map("from-python", NAMESPACE)
    events = watch.Watch().stream(api.list_namespaced_pod, NAMESPACE, timeout_seconds=2)
    out["watched"] = sorted({(e["type"], e["object"].metadata.name) for e in events})
    out["execOnce"] = stream(api.connect_get_namespaced_pod_exec, "talker", NAMESPACE,
                             command=["sh", "-c", "echo out"], stderr=True, stdin=False, stdout=True, tty=False)
    out["exec"] = interactive_exec(api)
    out["portForward"] = forward(api)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
