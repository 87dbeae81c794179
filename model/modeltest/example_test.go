package modeltest_test

import (
	"fmt"

	"github.com/odtkit/odtkit/model"
	"github.com/odtkit/odtkit/model/modeltest"
)

func ExampleNumeric() {
	d := modeltest.Numeric(1000, 3, 1)
	v := model.Binarize(d)
	fmt.Println(d.Rows(), d.NumFeatures(), v.NumTests() > 2500)
	// Output: 1000 3 true
}
