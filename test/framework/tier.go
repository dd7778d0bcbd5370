package framework

import (
	"fmt"
	"os"
)

// EnvTestTier names the test tier running the package: make sets it to unit, integration or e2e, the tiers
// hack/test-packages.sh assigns each package to from what its tests need.
const EnvTestTier = "REGISTRIES_CONTROLLER_TEST_TIER"

// outsideUnitTier returns an error when the unit tier runs a test that asks for part (a control plane, the
// controller binary, a registry): the unit tier runs only packages that need none of them, and a package that does
// belongs to another tier, which hack/test-packages.sh failed to see.
func outsideUnitTier(part string) error {
	if os.Getenv(EnvTestTier) != "unit" {
		return nil
	}
	return fmt.Errorf("this package's tests need %s, but make unit runs it (%s=unit): hack/test-packages.sh derives a package's tier "+
		"from its test files; call the test/framework function that starts %s from a _test.go file of the package, so that it runs in "+
		"make integration or make e2e", part, EnvTestTier, part)
}
