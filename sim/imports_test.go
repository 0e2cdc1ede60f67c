package sim

import (
	"os/exec"
	"strings"
	"testing"
)

// plotting lists module path parts of the drawing stack (gonum/plot and
// what it pulls: fonts, LaTeX, PDF, raster images, SVG): a library user
// who imports the model must not get them in their build.
var plotting = []string{"gonum.org/v1/plot", "golang.org/x/image", "go-pdf", "fpdf", "go-fonts", "go-latex", "svgo", "freetype", "sbinet/gg"}

// TestModelImportsNoPlotting: the packages a library user runs a system
// with (hw, noc, barrierunit, design, sim) depend on no plotting module;
// pictures and plots live in sim/pictures and sweep.
func TestModelImportsNoPlotting(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command on PATH")
	}
	pkgs := []string{"./hw", "./noc", "./barrierunit", "./design", "./sim"}
	cmd := exec.Command("go", append([]string{"list", "-deps"}, pkgs...)...)
	cmd.Dir = ".."
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < len(pkgs) || !strings.Contains(string(out), "github.com/hxbar/hxbar/sim\n") {
		t.Fatalf("go list -deps listed no sim: %s", out)
	}
	for _, d := range deps {
		for _, p := range plotting {
			if strings.Contains(d, p) {
				t.Errorf("%s is a dependency of %s (plotting: %s)", d, strings.Join(pkgs, " "), p)
			}
		}
	}
}
