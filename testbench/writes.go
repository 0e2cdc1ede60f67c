package testbench

import "github.com/hxbar/hxbar/design"

// ConfigWrite is one APB write of the configuration program the testbench
// replays: in episode Episode (1-based), on node Port's configuration port
// (FabricPort: the fabric port), Data to byte address Addr.
type ConfigWrite struct {
	Episode, Port int
	Addr, Data    uint32
}

// ConfigWrites returns every configuration write of d's run, as config.hex
// holds them: sorted by episode, then port, then program order. Other
// harnesses (the formal proof, verilog/formal) replay exactly these.
func ConfigWrites(d *design.Design) ([]ConfigWrite, error) {
	ws, err := episodeWrites(d)
	if err != nil {
		return nil, err
	}
	out := make([]ConfigWrite, len(ws))
	for i, w := range ws {
		out[i] = ConfigWrite(w)
	}
	return out, nil
}
