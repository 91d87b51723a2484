/**
 * 45 lines of ordinary terminal output that hold no secret but look like they might
 * (issue 46's over-redaction budget): commit ids, UUIDs, digests, a base64 image, paths,
 * public keys, a certificate, and npm, kubectl and docker output with the settings of
 * files the host-secret index reads (`registry=`, the kube `server:`, `LOG_PATH`,
 * `IMAGE`). At most 1 of them may come out changed (policy/over-redaction.test.ts).
 * Fixed text: certificate and public-key bodies come from fixed seeds (fakeText).
 */
import { fakeText } from './redaction-corpus.js';

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const certBody = Array.from({ length: 4 }, (_, i) => fakeText(BASE64, 64, 5100 + i));
const pubBody = Array.from({ length: 3 }, (_, i) => fakeText(BASE64, 64, 5200 + i));

export const ORDINARY_LINES: readonly string[] = [
  '$ git log --oneline -3',
  '5182c64 source search: judge each hit on a bounded window',
  'commit 61d9ace6a18cb766294546698d5751b6abbd8fe7',
  'Merge: 79e1623 a2b7a19',
  '$ sha256sum dist/app.tar.gz',
  'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  dist/app.tar.gz',
  'request 3f2b8c1e-9d4a-4e7b-8a6f-2c1d0e9b7a55 finished in 12 ms',
  'trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7',
  `<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">`,
  '/home/op/projects/terminal-mcp/services/broker/src/policy/redact.ts:42:7',
  'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl op@laptop',
  '-----BEGIN CERTIFICATE-----',
  ...certBody,
  '-----END CERTIFICATE-----',
  '-----BEGIN PUBLIC KEY-----',
  ...pubBody,
  '-----END PUBLIC KEY-----',
  '$ npm config list',
  'registry=https://registry.npmjs.org/',
  '@acme:registry=https://npm.pkg.github.com/',
  'added 312 packages, and audited 313 packages in 4s',
  'found 0 vulnerabilities',
  '$ kubectl config view',
  '    server: https://10.0.12.4:6443',
  '  name: prod-cluster',
  'NAME                       READY   STATUS    RESTARTS   AGE',
  'api-7d9c8b6f5-x2k4p        1/1     Running   0          3d4h',
  '$ docker images',
  'REPOSITORY   TAG       IMAGE ID       CREATED       SIZE',
  'app          1.4.2     9c7a54a9a43c   2 days ago    142MB',
  'Digest: sha256:4a5573037f358b6cdfa2f3e8a55c8b7f2e3f5d1c9b0a7e6d5c4b3a2f1e0d9c8b',
  'CONTAINER ID   IMAGE          COMMAND                  STATUS',
  'b1946ac92492   app:1.4.2      "node dist/main.js"      Up 3 hours',
  'LOG_PATH=/var/log/app/app.log',
  'IMAGE=ghcr.io/acme/app:1.4.2',
  'DATABASE_HOST=db.internal',
  '| name | value |',
  '│ max_tokens │ 4096 │',
  'git@github.com:acme/app.git',
  "Error: ENOENT: no such file or directory, open '/etc/app/config.json'",
];
