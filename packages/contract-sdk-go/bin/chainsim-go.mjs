#!/usr/bin/env node
// chainsim-go: build a Go contract into a WebAssembly module for chainsim (docs/contracts-go.md).
//   chainsim-go build <dir> [-o out.wasm]   build the Go module in <dir>
//   chainsim-go init <dir>                  write go.mod and contract.go for a new contract
// The build is offline: a temporary go.work puts this SDK next to the contract, so the contract's
// go.mod only needs `require chainsim.dev/contract-sdk-go v0.0.0` (no download, no replace).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONTRACT_LIMITS, meterWasmModule } from '@chainsim/contracts';

const run = promisify(execFile);
export const SDK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SDK_MODULE = 'chainsim.dev/contract-sdk-go';
const MIN_MINOR = 24; // //go:wasmexport arrived in Go 1.24

// checkModule throws when a validator would refuse the module at deployment (156), with its own check.
export function checkModule(buf) {
  try {
    meterWasmModule(buf, DEFAULT_CONTRACT_LIMITS);
  } catch (e) {
    throw new Error(`a validator would refuse the module (docs/wasm-abi.md §1): ${e.message}`);
  }
}

export async function findGo() {
  const candidates = process.env.GO ? [process.env.GO] : ['go', '/usr/local/go/bin/go'];
  for (const go of candidates) {
    let out;
    try {
      ({ stdout: out } = await run(go, ['env', 'GOVERSION'], { env: { ...process.env, GOTOOLCHAIN: 'local' } }));
    } catch {
      continue;
    }
    const m = /^go(\d+)\.(\d+)/.exec(out.trim());
    if (!m) continue;
    if (Number(m[1]) === 1 && Number(m[2]) < MIN_MINOR) {
      throw new Error(`${go} is ${out.trim()}; Go contracts need Go 1.${MIN_MINOR} or later (//go:wasmexport). Install a newer Go from https://go.dev/dl/.`);
    }
    return { go, version: out.trim().slice(2) };
  }
  throw new Error(process.env.GO ? `GO=${process.env.GO} does not run as a Go command.`
    : 'Go is not installed (no `go` in PATH, nor /usr/local/go/bin/go). Install Go 1.24 or later, or set GO=/path/to/go.');
}

// buildGoContract builds the Go main package in dir into outFile and returns { outFile, size, ms }.
export async function buildGoContract(dir, outFile) {
  dir = path.resolve(dir);
  if (!fs.existsSync(path.join(dir, 'go.mod'))) {
    throw new Error(`${dir} has no go.mod; start one with: chainsim-go init ${dir}`);
  }
  outFile = path.resolve(outFile ?? path.join(dir, path.basename(dir) + '.wasm'));
  const { go, version } = await findGo();
  const started = Date.now();
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'chainsim-go-'));
  try {
    const [major, minor] = version.split('.');
    const work = [`go ${major}.${minor}`, ''];
    work.push(`use ${JSON.stringify(dir)}`);
    if (dir !== SDK_DIR) work.push(`use ${JSON.stringify(SDK_DIR)}`);
    fs.writeFileSync(path.join(tmp, 'go.work'), work.join('\n') + '\n');
    const tmpOut = path.join(tmp, 'out.wasm');
    const env = {
      ...process.env,
      GOOS: 'wasip1', GOARCH: 'wasm', CGO_ENABLED: '0',
      GOWORK: path.join(tmp, 'go.work'),
      GOFLAGS: '', // a user's -mod=... would break workspace mode
      GOPROXY: 'off', GOSUMDB: 'off', GOTOOLCHAIN: 'local', // never download
    };
    // -trimpath and -buildvcs=false keep paths and git state out: the same source gives the same bytes.
    const args = ['build', '-buildmode=c-shared', '-trimpath', '-buildvcs=false', '-o', tmpOut, '.'];
    try {
      await run(go, args, { cwd: dir, env, maxBuffer: 16 << 20 });
    } catch (e) {
      throw new Error(`go build failed in ${dir}:\n${(e.stderr || e.message).trim()}`);
    }
    checkModule(fs.readFileSync(tmpOut));
    fs.mkdirSync(path.dirname(outFile), { recursive: true });
    fs.copyFileSync(tmpOut, outFile);
    return { outFile, size: fs.statSync(outFile).size, ms: Date.now() - started, goVersion: version };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const TEMPLATE = `// A Go contract for chainsim (docs/contracts-go.md).
package main

import (
	"chainsim.dev/contract-sdk-go/chain"
	"chainsim.dev/contract-sdk-go/utils"
)

func is(action uint64, method string) bool {
	n, err := utils.StringToName(method)
	return err == nil && n == action
}

// apply runs every entry point: code 0 init, 1 main, 2 query; action names the input's method.
//
//go:wasmexport apply
func apply(receiver, code, action uint64) {
	defer chain.RecoverPanic()
	switch {
	case code == 0:
		chain.Store("greeting", chain.GetArgsString("greeting"))
	case code == 1 && is(action, "greet"):
		g := chain.GetArgsString("greeting")
		chain.Assert(g != "", "say something")
		chain.Store("greeting", g)
	case code == 2:
		g, _ := chain.Load("greeting")
		chain.Return(g)
	default:
		chain.AssertFatal("unknown action: " + chain.Method())
	}
}

// main is required by -buildmode=c-shared; it never runs on the chain.
func main() {}
`;

// initGoContract writes go.mod and contract.go into dir (which must not have a go.mod yet).
export function initGoContract(dir) {
  dir = path.resolve(dir);
  if (fs.existsSync(path.join(dir, 'go.mod'))) throw new Error(`${dir}/go.mod exists already`);
  fs.mkdirSync(dir, { recursive: true });
  const name = path.basename(dir).toLowerCase().replace(/[^a-z0-9._-]/g, '-') || 'contract';
  fs.writeFileSync(path.join(dir, 'go.mod'), `module example.com/${name}\n\ngo 1.24\n\nrequire ${SDK_MODULE} v0.0.0\n`);
  fs.writeFileSync(path.join(dir, 'contract.go'), TEMPLATE);
  return [path.join(dir, 'go.mod'), path.join(dir, 'contract.go')];
}

const USAGE = `usage:
  chainsim-go build <dir> [-o out.wasm]   build the Go contract in <dir> (default out: <dir>/<dir name>.wasm)
  chainsim-go init <dir>                  start a contract: go.mod and contract.go`;

async function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === 'init' && rest.length === 1) {
    for (const f of initGoContract(rest[0])) console.log(`wrote ${f}`);
    return;
  }
  if (cmd !== 'build') throw new Error(USAGE);
  let dir, out;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === '-o') out = rest[++i];
    else if (dir === undefined) dir = rest[i];
    else throw new Error(USAGE);
  }
  if (!dir || (rest.includes('-o') && !out)) throw new Error(USAGE);
  const { go, version } = await findGo();
  console.log(`building ${path.resolve(dir)} with ${go} (go${version}, GOOS=wasip1 GOARCH=wasm, -buildmode=c-shared)...`);
  const r = await buildGoContract(dir, out);
  console.log(`wrote ${r.outFile}: ${r.size} bytes (${(r.size / 1048576).toFixed(2)} MiB) in ${(r.ms / 1000).toFixed(1)} s`);
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((e) => {
    console.error(`chainsim-go: ${e.message}`);
    process.exit(1);
  });
}
