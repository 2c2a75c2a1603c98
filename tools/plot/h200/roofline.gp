# Roofline of the tuned problems; re-render with: gnuplot /work/main/tools/plot/h200/roofline.gp
set terminal pngcairo size 1200,800 enhanced font 'Sans,11' background rgb 'white'
set output '/work/main/tools/plot/h200/roofline.png'
set title 'SGEMM roofline: NVIDIA H200 (sm_90, 132 SMs at 1980 MHz)' noenhanced
set logscale xy
set xrange [0.1249:5461]
set yrange [0.2686:167.3]
set xlabel 'arithmetic intensity (FLOP per byte of minimal traffic: A, B read and C written once)'
set ylabel 'TFLOP/s (FP32)'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key bottom right box opaque
set samples 2000
peak = 66.9082
bw = 4.3
roof(x) = (bw * x < peak) ? bw * x : peak
set label 1 sprintf('FP32 peak %.1f TFLOP/s', peak) at 5461 / 1.3, peak * 1.12 right font ',10'
set label 2 sprintf('memory %.2f TB/s', bw) at 0.1999, bw * 0.1999 * 1.35 left rotate by 33 font ',10'
set arrow 1 from 15.56, graph 0 to 15.56, peak nohead dt 3 lc rgb '#999999'
plot roof(x) with lines lw 2.5 lc rgb '#333333' title 'roofline (FP32 peak, HBM ceiling)', \
  '/work/main/tools/plot/h200/roofline.dat' using 1:3:(0):($2-$3) with vectors nohead dt 2 lc rgb '#aaaaaa' notitle, \
  '/work/main/tools/plot/h200/roofline.dat' using 1:3 with points pt 6 ps 1.6 lw 1.5 lc rgb '#d62728' title 'cuBLAS', \
  '/work/main/tools/plot/h200/roofline.dat' using 1:2 with points pt 7 ps 1.3 lc rgb '#1f77b4' title 'tuned (winner)', \
  '/work/main/tools/plot/h200/roofline.dat' using 1:2:4 with labels left offset 0.9,0.5 font ',8' noenhanced notitle
set terminal svg size 1200,800 enhanced font 'Sans,11' background rgb 'white'
set output '/work/main/tools/plot/h200/roofline.svg'
replot
unset output
