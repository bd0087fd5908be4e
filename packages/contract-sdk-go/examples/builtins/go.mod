module chainsim.dev/examples/builtins

go 1.24

require chainsim.dev/contract-sdk-go v0.0.0
