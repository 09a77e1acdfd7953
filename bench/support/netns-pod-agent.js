'use strict';
// A stand-in pod, run inside a network namespace: it serves TCP and UDP on one port, answering each
// connection and datagram with its name and the address it saw the client at, and runs client
// requests it is sent on stdin (one JSON object a line, answered on stdout with the same id). Plain
// JavaScript, so that it starts in a fraction of a second under `ip netns exec`.
const net = require('node:net');
const dgram = require('node:dgram');
const readline = require('node:readline');

const [name, portText] = process.argv.slice(2);
const port = Number(portText);
const answer = (address, port) => `${name} ${address}:${port}`;

const tcp = net.createServer((socket) => {
  socket.setNoDelay(true);
  socket.write(`${answer(socket.remoteAddress, socket.remotePort)}\n`);
  // Each further line is echoed, so one connection can be used again and again.
  let buffered = '';
  socket.on('data', (chunk) => {
    buffered += chunk.toString();
    let nl;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      socket.write(`${name} ${line}\n`);
    }
  });
  socket.on('error', () => undefined);
});
const udp = dgram.createSocket('udp4');
udp.on('message', (message, rinfo) => udp.send(answer(rinfo.address, rinfo.port), rinfo.port, rinfo.address));

function firstLine(socket, timeoutMs) {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('timeout'));
    }, timeoutMs);
    const onData = (chunk) => {
      text += chunk.toString();
      const nl = text.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        socket.off('data', onData);
        resolve(text.slice(0, nl));
      }
    };
    socket.on('data', onData);
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

async function tcpOnce(host, port, timeoutMs) {
  const socket = net.connect({ host, port });
  try {
    return await firstLine(socket, timeoutMs);
  } finally {
    socket.destroy();
  }
}

function udpOnce(host, port, timeoutMs) {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket(host.includes(':') ? 'udp6' : 'udp4');
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error('timeout'));
    }, timeoutMs);
    socket.on('message', (message) => {
      clearTimeout(timer);
      socket.close();
      resolve(message.toString());
    });
    socket.on('error', (error) => {
      clearTimeout(timer);
      socket.close();
      reject(error);
    });
    socket.send('hello', port, host);
  });
}

const open = new Map();
let nextHandle = 1;

async function run(request) {
  const timeoutMs = request.timeoutMs ?? 2000;
  switch (request.op) {
    case 'tcp':
      return tcpOnce(request.host, request.port, timeoutMs);
    case 'udp':
      return udpOnce(request.host, request.port, timeoutMs);
    case 'connect':
      return new Promise((resolve, reject) => {
        const socket = net.connect({ host: request.host, port: request.port });
        const timer = setTimeout(() => {
          socket.destroy();
          reject(new Error('timeout'));
        }, timeoutMs);
        socket.once('connect', () => {
          clearTimeout(timer);
          socket.destroy();
          resolve(true);
        });
        socket.once('error', (error) => {
          clearTimeout(timer);
          reject(error);
        });
      });
    case 'open': {
      const socket = net.connect({ host: request.host, port: request.port });
      const first = await firstLine(socket, timeoutMs);
      const handle = nextHandle++;
      open.set(handle, socket);
      return { handle, first };
    }
    case 'send': {
      const socket = open.get(request.handle);
      if (!socket) throw new Error(`no connection ${request.handle}`);
      const reply = firstLine(socket, timeoutMs);
      socket.write(`${request.text}\n`);
      return reply;
    }
    case 'close':
      open.get(request.handle)?.destroy();
      open.delete(request.handle);
      return true;
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let request;
  try {
    request = JSON.parse(line);
  } catch {
    return;
  }
  run(request).then(
    (result) => process.stdout.write(`${JSON.stringify({ id: request.id, ok: true, result })}\n`),
    (error) => process.stdout.write(`${JSON.stringify({ id: request.id, ok: false, error: error.code || error.message })}\n`),
  );
});
// The test is gone: so is the pod.
lines.on('close', () => process.exit(0));

tcp.listen(port, '0.0.0.0', () => udp.bind(port, '0.0.0.0', () => process.stdout.write(`${JSON.stringify({ ready: true })}\n`)));
