module chainsim.dev/contract-sdk-go

go 1.24
