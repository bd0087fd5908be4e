// The part of the WebAssembly JavaScript API the host side uses. Node has it; the project's lib setting
// (ES2023, no DOM) does not declare it.
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
    static imports(module: Module): { module: string; name: string; kind: string }[];
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, unknown>>);
  }
}
