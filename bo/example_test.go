package bo_test

import (
	"fmt"
	"math/rand/v2"

	"sardonics/bo"
)

// The adaptation loop: ask for a unit point, map it to parameters, measure
// a reward, tell; then draw the policy's settings.
func Example() {
	space := bo.Space{
		Dims: []bo.Dim{
			{Name: "kl", Lo: 1, Hi: 70, Integer: true},
			{Name: "ku", Lo: 2, Hi: 120, Integer: true},
			{Name: "g", Lo: 0.9, Hi: 1.1},
		},
		Orders: []bo.Order{{Lower: 0, Upper: 1}},
	}
	reward := func(p []float64) float64 { return -(p[1]-p[0]-10)*(p[1]-p[0]-10)/100 - (p[2]-1)*(p[2]-1) }
	opt, err := bo.NewOptimizer(space, bo.Options{}, rand.NewPCG(1, 2))
	if err != nil {
		panic(err)
	}
	for range 20 {
		u, err := opt.Next()
		if err != nil {
			panic(err)
		}
		p := space.ToParams(u)
		if err := opt.Observe(u, reward(p)); err != nil {
			panic(err)
		}
	}
	settings, err := opt.Policy(100, 0.5)
	if err != nil {
		panic(err)
	}
	p := space.ToParams(settings[0])
	fmt.Println(len(settings), p[1] >= p[0])
	// Output: 100 true
}
