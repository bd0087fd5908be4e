export const USAGE = `chainsim: a local multi-validator blockchain network, one OS process per validator

usage: chainsim <command> [options]

commands:
  up [MANIFEST]         start every validator, wait until all agree on ledger 2; prints endpoints and dev keys
    --data-dir D          data, configs and logs (default: .chainsim/<network name> in this directory)
    --port-base P         node i listens on P+10*i+1 (p2p), +2 (http), +3 (ws) (default: the manifest's port_base)
    --detach              leave the network running and exit; stop it with \`chainsim down\`
    --fresh               wipe the data directory first (by default a restart resumes the chain)
    --json                print one JSON object: network, consensus, nodes, genesis
  down [MANIFEST]       stop a network started with --detach
    --data-dir D          the network's data directory (default: .chainsim/<network name>)
  status [MANIFEST]     one table across the nodes: leader, view, last closed seq, phase, peers, pool, ledger hash
    --data-dir D          the network's data directory (default: .chainsim/<network name>)
    --nodes URL,...       read these nodes instead (http://host:port of each)
    --compose [FILE] [--project NAME]   the network of docker-compose.yml (as for fault)
    --watch               refresh every second until Ctrl-C
    --json                one JSON object per reading
  dashboard [MANIFEST]  a live web page of the network: nodes, ledger hashes, height chart, active faults
    --data-dir D | --nodes URL,... | --compose [FILE] [--project NAME]   as for status
    --port P              where the page is served (default 16900; 0 picks a free port)
    --host H              address to listen on (default 127.0.0.1)
  logs [NODE]           the validators' logs (or NODE's), merged in time order, each line with its node
    --data-dir D          the network's data directory (default: .chainsim/<network name> of the default manifest)
    --compose [FILE] [--project NAME]   the containers of docker-compose.yml instead (their /data volumes)
    --level L             only L and above: trace, debug, info, warn, error, fatal
    --follow, -f          keep printing lines as they are written, until Ctrl-C
    --json                one JSON record per line instead of text
  fault NODE ACTION [ARG]  a fault on a running network (docs/faults.md); \`fault all heal\` heals every node
    kill|start|restart|wipe|pause|resume           the validator's process (wipe: delete its data, restart, state-sync)
    partition v2,v3 | disconnect | heal            cut links both ways (disconnect: from every other node); heal: undo all but a kill
    delay MS [--jitter MS] | drop P | duplicate P | reorder P | byzantine MODE   message faults in NODE's p2p layer
    --for D               undo after D (10s, 500ms); message rules expire in the node
    --peers v2,v3         only messages to/from these validators
    --data-dir D          the network's data directory (default: .chainsim/<network name>)
    --compose [FILE] [--project NAME]   the network of docker-compose.yml: process faults through docker or podman
  scenario MANIFEST     start a network, run load and the manifest's perturbations, check the invariants, stop
    --seed N              the schedule's seed (printed; the same seed gives the same schedule)
    --liveness-bound-ms MS   the liveness bound instead of the manifest's (a slow or shared machine)
    --data-dir D [--port-base P]   run there, wiped first (default: a temporary directory on free ports)
    --compose [FILE] [--project NAME]   on the compose project instead of local processes (brought up if needed)
    --json                one JSON object: verdict, invariants, perturbations, tps, latency_ms, view_changes, seed
  sim [MANIFEST]        the whole network in this process on a virtual clock: seeded faults and load, every invariant
    --seeds N [--from S]  run seeds S..S+N-1 (default 10 from 1) and print a table; exit 1 when one fails
    --jobs J              with --seeds: spread the seeds over J processes (one per core; the runs are the same)
    --replay SEED         run one seed again exactly; prints its trace hash (the same every time)
    --shrink              with --replay: reduce a failing seed's faults to a smallest schedule that still fails
    --trace FILE          with --replay: write every message, timer, fault and commit in order (JSON lines)
    --view [--port P] [--host H]   with --replay: serve the trace as a web page (lanes, arrows, the first violation)
    --duration-ms MS      virtual time of load and faults per run (default 30000)
    --json                one JSON object: runs, failed, seeds_per_minute, simulated_seconds_per_run (or the run)
  keys [MANIFEST]       print the dev accounts: genesis and every validator
    --json                as one JSON object
  node --config FILE    run one validator from a config file (what \`up\` starts for each node)
  node --manifest M --name N   write the config of validator N of manifest M, then run it
    --container           the variant for docker-compose.yml: listen on 0.0.0.0, peers by service name, data in /data
    --port-base P         as for up (default: the manifest's port_base)
    --data-dir D          default: /data with --container, else as for up
  help                  this text

MANIFEST is a network manifest (TOML); the default is networks/local-4.toml of the chainsim repository
(also there: single.toml, one validator; local-7.toml, seven).`;

/** `chainsim help`. */
export async function help(): Promise<number> {
  process.stdout.write(USAGE + "\n");
  return 0;
}
