#!/usr/bin/env node
// chainsim-cpp build <file.cpp> [-o <outdir>]: builds a C++ contract into <name>.wasm and <name>.abi.
// The module follows docs/wasm-abi.md; toolchain facts and flags come from docs/wasm-design.md.
import { spawn } from "node:child_process";
import fsc from "node:fs";
import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_CONTRACT_LIMITS, meterWasmModule, stringToName } from "@chainsim/contracts";

const SDK_INCLUDE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "include");
const APT = "apt-get install -y --no-install-recommends clang-16 lld-16 wasi-libc libc++-16-dev-wasm32 libclang-rt-16-dev-wasm32";
const PARAM_TYPES = new Map([
  ["std::string", "string"], ["std::basic_string<char>", "string"], ["std::__2::basic_string<char>", "string"],
  ["int64_t", "int64"], ["long long", "int64"], ["uint64_t", "uint64"], ["unsigned long long", "uint64"],
  ["int32_t", "int32"], ["int", "int32"], ["bool", "bool"],
]);
const CPP_TYPES = { string: "std::string", int64: "int64_t", uint64: "uint64_t", int32: "int32_t", bool: "bool" };

class BuildError extends Error {}

function log(msg) {
  process.stderr.write(`chainsim-cpp: ${msg}\n`);
}

async function exists(p, mode = fsc.constants.F_OK) {
  try {
    await fs.access(p, mode);
    return true;
  } catch {
    return false;
  }
}

async function which(name) {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && (await exists(path.join(dir, name), fsc.constants.X_OK))) return path.join(dir, name);
  }
  return null;
}

// clang's wasm driver runs `wasm-opt` after linking when one is on PATH (npm puts binaryen's there, in
// node_modules/.bin): the same source then gave 26,004 bytes under `npx` and 30,661 without. Left off PATH,
// so that the module depends on the source and the toolchain alone.
const PATH_WITHOUT_WASM_OPT = (process.env.PATH ?? "")
  .split(path.delimiter)
  .filter((dir) => dir && !fsc.existsSync(path.join(dir, "wasm-opt")))
  .join(path.delimiter);

// Runs a command; resolves with its stdout, stderr and exit code (stderr also streamed when asked).
function run(cmd, args, { echoStderr = false } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, PATH: PATH_WITHOUT_WASM_OPT } });
    const out = [];
    const err = [];
    child.stdout.on("data", (d) => out.push(d));
    child.stderr.on("data", (d) => {
      err.push(d);
      if (echoStderr) process.stderr.write(d);
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout: Buffer.concat(out).toString(), stderr: Buffer.concat(err).toString() }));
  });
}

// clang++-16 (or -14) and wasm-ld, plus the Debian wasm32 packages the build links against.
async function findToolchain() {
  let clang = null;
  let version = null;
  for (const v of ["16", "14"]) {
    clang = await which(`clang++-${v}`);
    if (clang) { version = v; break; }
  }
  const ld = (await which(`wasm-ld-${version ?? "16"}`)) ?? (await which("wasm-ld"));
  const missing = [];
  if (!clang) missing.push("clang++-16 (or clang++-14)");
  if (!ld) missing.push("wasm-ld-16 (or wasm-ld)");
  if (!(await exists("/usr/include/wasm32-wasi/stdlib.h"))) missing.push("wasi-libc (/usr/include/wasm32-wasi)");
  if (!(await exists("/usr/include/wasm32-wasi/c++/v1/string"))) missing.push(`libc++-${version ?? "16"}-dev-wasm32`);
  if (!(await exists("/usr/lib/wasm32-wasi/libc++.a"))) missing.push(`libc++-${version ?? "16"}-dev-wasm32 (libc++.a)`);
  if (version && !(await exists(`/usr/lib/llvm-${version}/lib/clang`))) missing.push(`libclang-rt-${version}-dev-wasm32`);
  if (missing.length) {
    throw new BuildError(`missing: ${missing.join(", ")}.\nInstall the C++ toolchain with:\n  sudo ${APT}`);
  }
  return { clang, version };
}

// Debian spreads the wasi sysroot over several folders (docs/wasm-design.md): one of symlinks, with the
// empty include/c++/v1 that clang's driver looks for, lets `#include <string>` work. Made once per user,
// built under a temporary name and renamed into place so concurrent builds never see half of it.
async function sysroot(version) {
  const base = process.env.XDG_CACHE_HOME || (os.homedir() ? path.join(os.homedir(), ".cache") : os.tmpdir());
  const candidates = [path.join(base, "chainsim"), path.join(os.tmpdir(), `chainsim-${process.getuid?.() ?? "user"}`)];
  for (const dir of candidates) {
    const root = path.join(dir, `wasi-sysroot-${version}`);
    if (await exists(path.join(root, "include", "wasm32-wasi", "stdlib.h"))) return root;
    try {
      await fs.mkdir(dir, { recursive: true });
      const tmp = await fs.mkdtemp(path.join(dir, `.wasi-sysroot-${version}-`));
      await fs.mkdir(path.join(tmp, "include", "c++", "v1"), { recursive: true });
      await fs.mkdir(path.join(tmp, "lib"));
      await fs.symlink("/usr/include/wasm32-wasi", path.join(tmp, "include", "wasm32-wasi"));
      await fs.symlink("/usr/lib/wasm32-wasi", path.join(tmp, "lib", "wasm32-wasi"));
      try {
        await fs.rename(tmp, root);
      } catch (e) {
        await fs.rm(tmp, { recursive: true, force: true });
        if (!(await exists(path.join(root, "include", "wasm32-wasi", "stdlib.h")))) throw e;
      }
      return root;
    } catch (e) {
      if (dir === candidates[candidates.length - 1]) throw new BuildError(`cannot make the wasi sysroot in ${dir}: ${e.message}`);
    }
  }
  throw new BuildError("cannot make the wasi sysroot");
}

function paramType(t) {
  const bare = t.replace(/^const\s+/, "").replace(/\s*&{1,2}$/, "").replace(/^const\s+/, "").trim();
  return PARAM_TYPES.get(bare) ?? null;
}

function returnType(methodType) {
  const ret = methodType.slice(0, methodType.indexOf("(")).trim().replace(/^const\s+/, "");
  if (ret === "void") return "void";
  if (ret === "bool") return "bool";
  return paramType(ret) === "string" ? "string" : null;
}

// Reads the contract class and its actions from clang's JSON AST. The full dump of a file that includes
// libc++ is hundreds of MB, so only declarations named like a marked class are dumped.
async function readContract(clang, flags, file, source) {
  const re = /\b(?:class|struct)\s+(?:CHAINSIM_CONTRACT|__attribute__\s*\(\(\s*annotate\s*\(\s*"chainsim::contract"\s*\)\s*\)\)|\[\[\s*clang::annotate\s*\(\s*"chainsim::contract"\s*\)\s*\]\])\s+([A-Za-z_]\w*)/g;
  const names = [...new Set([...source.matchAll(re)].map((m) => m[1]))];
  if (names.length === 0) throw new BuildError(`${file}: no class marked CHAINSIM_CONTRACT`);
  if (names.length > 1) throw new BuildError(`${file}: one contract per file, found ${names.join(", ")}`);
  const name = names[0];
  const r = await run(clang, [...flags, "-fsyntax-only", "-Xclang", "-ast-dump=json", "-Xclang", "-ast-dump-filter", "-Xclang", name, file]);
  if (r.code !== 0) {
    process.stderr.write(r.stderr);
    throw new BuildError(`${file}: clang failed (exit ${r.code})`);
  }
  const docs = r.stdout.split(/\n}\n/).filter((s) => s.trim()).map((s) => JSON.parse(s + "}"));
  const cls = docs.find((d) => d.kind === "CXXRecordDecl" && d.name === name && d.completeDefinition &&
    (d.inner ?? []).some((n) => n.kind === "AnnotateAttr"));
  if (!cls) throw new BuildError(`${file}: class ${name} is marked but has no definition in this file`);
  if (!(cls.bases ?? []).some((b) => /(^|::)contract$/.test(b.type?.desugaredQualType ?? b.type?.qualType ?? ""))) {
    throw new BuildError(`${file}: class ${name} must derive publicly from chainsim::contract`);
  }
  // An annotation on a method of the contract class marks an action (CHAINSIM_ACTION).
  const actions = [];
  let access = cls.tagUsed === "struct" ? "public" : "private";
  for (const m of cls.inner ?? []) {
    if (m.kind === "AccessSpecDecl") access = m.access;
    if (m.kind !== "CXXMethodDecl" || !(m.inner ?? []).some((n) => n.kind === "AnnotateAttr")) continue;
    const where = `${file}:${m.loc?.line ?? cls.loc?.line ?? "?"}: action ${m.name}`;
    if (access !== "public") throw new BuildError(`${where}: an action must be public`);
    const value = stringToName(m.name);
    if (value === undefined) throw new BuildError(`${where}: not an action name (at most 13 characters of .12345a-z, docs/wasm-abi.md §4)`);
    if (actions.some((a) => a.name === m.name)) throw new BuildError(`${where}: actions cannot be overloaded`);
    if (m.storageClass === "static") throw new BuildError(`${where}: an action cannot be static`);
    const params = [];
    for (const p of (m.inner ?? []).filter((n) => n.kind === "ParmVarDecl")) {
      const t = paramType(p.type.desugaredQualType ?? p.type.qualType) ?? paramType(p.type.qualType);
      if (!t) throw new BuildError(`${where}: parameter type ${p.type.qualType} is not one of std::string, int64_t, uint64_t, int32_t, bool`);
      if (!p.name) throw new BuildError(`${where}: every parameter needs a name (params are read by name)`);
      params.push({ name: p.name, type: t });
    }
    const returns = returnType(m.type.qualType);
    if (!returns) throw new BuildError(`${where}: return type must be void, std::string or bool`);
    actions.push({ name: m.name, action: value.toString(), params, returns });
  }
  if (actions.length === 0) throw new BuildError(`${file}: class ${name} has no CHAINSIM_ACTION method`);
  return { contract: name, actions };
}

// The translation unit that exports apply(receiver, code, action) (docs/wasm-abi.md §2).
function dispatcher(file, abi) {
  const lines = [
    `// Generated by chainsim-cpp from ${path.basename(file)}. Do not edit.`,
    `#include ${JSON.stringify(file)}`,
    `#include <chainsim/dispatch.hpp>`,
    ``,
    `extern "C" __attribute__((export_name("apply"))) void apply(uint64_t receiver, uint64_t code, uint64_t action) {`,
    `  (void)receiver;`,
    `  chainsim::dispatch::run r(code, action);`,
    `  ${abi.contract} c;`,
    `  c.chainsim_bind(code, r.action());`,
    `  switch (r.action()) {`,
  ];
  for (const a of abi.actions) {
    lines.push(`    case ${a.action}ull: {  // ${a.name}`);
    a.params.forEach((p, i) => lines.push(`      ${CPP_TYPES[p.type]} a${i}{};`, `      r.get(${JSON.stringify(p.name)}, a${i});`));
    const callExpr = `c.${a.name}(${a.params.map((_, i) => `a${i}`).join(", ")})`;
    lines.push(a.returns === "void" ? `      ${callExpr};` : `      chainsim::dispatch::send(${callExpr});`, `      return;`, `    }`);
  }
  if (!abi.actions.some((a) => a.name === "init")) {
    lines.push(`    case ${stringToName("init")}ull:  // no init action: creating the contract does nothing`, `      return;`);
  }
  lines.push(`    default:`, `      r.unknown();`, `  }`, `}`, ``);
  return lines.join("\n");
}

// Refuses what a validator would refuse at deployment (docs/wasm-abi.md §1), with the validator's own check.
async function checkModule(wasmPath) {
  try {
    meterWasmModule(await fs.readFile(wasmPath), DEFAULT_CONTRACT_LIMITS);
  } catch (e) {
    throw new BuildError(`a validator would refuse the module: ${e.message}`);
  }
}

/** Builds `file` into `<outDir>/<base>.wasm` and `<outDir>/<base>.abi`; resolves with their paths. */
export async function buildCppContract(file, outDir = path.dirname(file)) {
  const started = Date.now();
  file = path.resolve(file);
  outDir = path.resolve(outDir);
  const source = await fs.readFile(file, "utf8").catch((e) => { throw new BuildError(`cannot read ${file}: ${e.message}`); });
  const { clang, version } = await findToolchain();
  const root = await sysroot(version);
  const base = path.basename(file).replace(/\.(cpp|cc|cxx|c\+\+)$/i, "");
  const work = await fs.mkdtemp(path.join(os.tmpdir(), "chainsim-cpp-"));
  try {
    // Paths are mapped away so the module is the same whatever the folder (no debug info is kept anyway).
    const flags = ["--target=wasm32-wasi", `--sysroot=${root}`, "-std=c++20", "-fno-exceptions", "-DNDEBUG",
      `-I${SDK_INCLUDE}`, `-ffile-prefix-map=${path.dirname(file)}=.`, `-ffile-prefix-map=${work}=.`, `-ffile-prefix-map=${SDK_INCLUDE}=sdk`];
    log(`reading the actions of ${path.basename(file)} (${path.basename(clang)})`);
    const abi = await readContract(clang, flags, file, source);
    log(`contract ${abi.contract}: ${abi.actions.map((a) => a.name).join(", ")}`);
    const tu = path.join(work, `${base}.apply.cpp`);
    await fs.writeFile(tu, dispatcher(file, abi));
    await fs.mkdir(outDir, { recursive: true });
    const wasm = path.join(outDir, `${base}.wasm`);
    const abiPath = path.join(outDir, `${base}.abi`);
    const tmpWasm = path.join(work, `${base}.wasm`);
    log("compiling and linking (-Oz)");
    // --stack-first puts clang's shadow stack (64 KiB) below the data, so an overflow traps at
    // address < 0 instead of silently overwriting static data.
    const r = await run(clang, [...flags, "-mexec-model=reactor", "-Oz", "-Wl,--strip-all", "-Wl,--stack-first", tu, "-o", tmpWasm], { echoStderr: true });
    if (r.code !== 0) throw new BuildError(`${path.basename(file)}: compilation failed (clang exit ${r.code})`);
    await checkModule(tmpWasm);
    await fs.copyFile(tmpWasm, wasm);
    await fs.writeFile(abiPath, JSON.stringify({ contract: abi.contract, actions: abi.actions }, null, 2) + "\n");
    const size = (await fs.stat(wasm)).size;
    if (size > 4 * 1024 * 1024) log(`warning: ${size} bytes is above the 4 MiB a deployment accepts (docs/wasm-abi.md §1)`);
    const shown = path.relative(process.cwd(), wasm).startsWith("..") ? wasm : path.relative(process.cwd(), wasm);
    log(`wrote ${shown} (${size} bytes) and ${path.basename(abiPath)} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { wasm, abi: abiPath };
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

const USAGE = "usage: chainsim-cpp build <file.cpp> [-o <outdir>]";

async function main(argv) {
  const [cmd, ...rest] = argv;
  if (cmd === "-h" || cmd === "--help" || cmd === "help") {
    console.log(USAGE);
    return 0;
  }
  if (cmd !== "build") {
    console.error(USAGE);
    return 2;
  }
  let file = null;
  let outDir = null;
  for (let i = 0; i < rest.length; i++) {
    if (rest[i] === "-o" || rest[i] === "--out") outDir = rest[++i];
    else if (!file && !rest[i].startsWith("-")) file = rest[i];
    else { console.error(`unexpected argument ${rest[i]}\n${USAGE}`); return 2; }
  }
  if (!file || (outDir === undefined)) { console.error(USAGE); return 2; }
  try {
    await buildCppContract(file, outDir ?? path.dirname(path.resolve(file)));
    return 0;
  } catch (e) {
    if (e instanceof BuildError) { log(`error: ${e.message}`); return 1; }
    throw e;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(await fs.realpath(process.argv[1]).catch(() => process.argv[1])).href) {
  process.exitCode = await main(process.argv.slice(2));
}
