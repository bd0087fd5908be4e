export { accountFromSeed, devAccount, type Account } from "./accounts.js";
export { CliError } from "./errors.js";
export { CONTAINER_DATA_DIR, CONTAINER_LISTEN_HOST, containerNodeConfig, toContainerConfig, type ContainerLayout } from "./container-config.js";
export { DEFAULT_PORT_BASE, loadManifest, parseManifest, PERTURBATIONS, type Manifest, type ManifestNode, type Perturbation } from "./manifest.js";
export {
  checkPortBase,
  HOST,
  highestPort,
  networkConfigs,
  nodePorts,
  validatorPaths,
  writeNodeConfig,
  type NetworkLayout,
  type NodePorts,
  type ValidatorPaths,
} from "./network-config.js";
export {
  networkRecordPath,
  readNetworkRecord,
  type NetworkRecord,
  type NodeEndpoint,
} from "./network-record.js";
export { isPortFree } from "./port-check.js";
export { isValidatorRunning, type StopOptions, type StopOutcome } from "./processes.js";
export {
  describeExit,
  startValidator,
  stopValidator,
  VALIDATOR_COMMAND,
  waitForNodes,
  type ExitStatus,
  type ReadyOptions,
  type StartOptions,
  type ValidatorProcess,
} from "./validator.js";
export {
  launchNetwork,
  stopRecordedNetwork,
  type LaunchedNode,
  type LaunchOptions,
  type NetworkHandle,
  type StoppedNode,
} from "./launcher.js";
export { BIN_PATH, DEFAULT_MANIFEST_PATH } from "./paths.js";
export { freePortBase, launchTemporaryNetwork, type TemporaryNetwork, type TemporaryNetworkOptions } from "./temporary-network.js";
export { runScenario, type ScenarioOptions } from "./scenario/runner.js";
export { livenessBoundMs } from "@chainsim/sim";
export { formatReport, type ScenarioReport } from "./scenario/report.js";
export { parsePrometheusText, type MetricFamily, type MetricType, type Sample } from "./dashboard/prometheus-text.js";
export { serveTraceView, type TraceViewOptions } from "./sim/view-server.js";
