package bo

import "math"

// Reference problems on their standard boxes, rescaled to [0,1]^D.

// branin on [-5,10]x[0,15]; global minimum 0.397887 (three minimizers).
func branin(u []float64) float64 {
	x1, x2 := -5+15*u[0], 15*u[1]
	b, c := 5.1/(4*math.Pi*math.Pi), 5/math.Pi
	t := x2 - b*x1*x1 + c*x1 - 6
	return t*t + 10*(1-1/(8*math.Pi))*math.Cos(x1) + 10
}

// goldsteinPrice on [-2,2]^2; global minimum 3 at (0,-1).
func goldsteinPrice(u []float64) float64 {
	x, y := -2+4*u[0], -2+4*u[1]
	a := 1 + (x+y+1)*(x+y+1)*(19-14*x+3*x*x-14*y+6*x*y+3*y*y)
	b := 30 + (2*x-3*y)*(2*x-3*y)*(18-32*x+12*x*x+48*y-36*x*y+27*y*y)
	return a * b
}

// hartmann6 on [0,1]^6; global minimum -3.32237.
func hartmann6(x []float64) float64 {
	alpha := [4]float64{1.0, 1.2, 3.0, 3.2}
	A := [4][6]float64{
		{10, 3, 17, 3.5, 1.7, 8},
		{0.05, 10, 17, 0.1, 8, 14},
		{3, 3.5, 1.7, 10, 17, 8},
		{17, 8, 0.05, 10, 0.1, 14},
	}
	P := [4][6]float64{
		{1312, 1696, 5569, 124, 8283, 5886},
		{2329, 4135, 8307, 3736, 1004, 9991},
		{2348, 1451, 3522, 2883, 3047, 6650},
		{4047, 8828, 8732, 5743, 1091, 381},
	}
	var s float64
	for i := range 4 {
		var e float64
		for j := range 6 {
			d := x[j] - P[i][j]*1e-4
			e += A[i][j] * d * d
		}
		s += alpha[i] * math.Exp(-e)
	}
	return -s
}
