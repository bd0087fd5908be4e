import ivm from "isolated-vm";
import { JsRuntime, DEFAULT_CONTRACT_LIMITS } from "./dist/src/index.js";
const N=200;
let t=performance.now();
for (let i=0;i<N;i++){ const iso=new ivm.Isolate({memoryLimit:128}); iso.dispose(); }
console.log("new+dispose isolate ms", ((performance.now()-t)/N).toFixed(2));
t=performance.now();
for (let i=0;i<N;i++){ const iso=new ivm.Isolate({memoryLimit:128}); await iso.createContext(); iso.dispose(); }
console.log("+createContext ms", ((performance.now()-t)/N).toFixed(2));
const rt = new JsRuntime(DEFAULT_CONTRACT_LIMITS); await rt.warm();
t=performance.now(); const cpu0=process.cpuUsage();
for (let i=0;i<N;i++){ await rt["prepare"]().then(p=>rt["discard"](p)); }
const cpu=process.cpuUsage(cpu0);
console.log("prepare+discard ms", ((performance.now()-t)/N).toFixed(2), "cpu ms", ((cpu.user+cpu.system)/1000/N).toFixed(2));
rt.dispose();
