# Roofline of the tuned problems; re-render in this folder with: gnuplot roofline.gp
set terminal pngcairo size 1500,800 enhanced font 'Sans,11' background rgb 'white'
set output 'roofline.png'
set rmargin at screen 0.74
set label 9 'problem (ratio, winner)' at screen 0.755, screen 0.93 left font ',10'
set label 10 ' 1  NN 257x511x129 align=1  1.00x cuBLAS' at screen 0.755, screen 0.8980 left font ',9' noenhanced
set label 11 ' 2  NN 1000x1300x700  1.00x cuBLAS' at screen 0.755, screen 0.8660 left font ',9' noenhanced
set label 12 ' 3  NN 1024x1024x1024  1.00x cuBLAS' at screen 0.755, screen 0.8340 left font ',9' noenhanced
set label 13 ' 4  NN 2048x2048x2048  1.00x cuBLAS' at screen 0.755, screen 0.8020 left font ',9' noenhanced
set label 14 ' 5  NN 4096x16x4096  2.79x f4_skinny' at screen 0.755, screen 0.7700 left font ',9' noenhanced
set title 'SGEMM roofline: NVIDIA H200 (sm_90, 132 SMs at 1980 MHz)' noenhanced
set logscale xy
set xrange [1.984:1365]
set yrange [1.176:167.3]
set xlabel 'arithmetic intensity (FLOP per byte of minimal traffic: A, B read and C written once)'
set ylabel 'TFLOP/s (FP32)'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key bottom right box opaque
set samples 2000
peak = 66.9082
bw = 4.3
roof(x) = (bw * x < peak) ? bw * x : peak
set label 1 sprintf('FP32 peak %.1f TFLOP/s', peak) at 1365 / 1.3, peak * 1.12 right font ',10'
set label 2 sprintf('memory %.2f TB/s', bw) at 2.58, bw * 2.58 * 1.35 left rotate by 33 font ',10'
set arrow 1 from 15.56, graph 0 to 15.56, peak nohead dt 3 lc rgb '#999999'
plot roof(x) with lines lw 2.5 lc rgb '#333333' title 'roofline (FP32 peak, HBM ceiling)', \
  'roofline.dat' using 1:3:(0):($2-$3) with vectors nohead dt 2 lc rgb '#aaaaaa' notitle, \
  'roofline.dat' using 1:3 with points pt 6 ps 1.6 lw 1.5 lc rgb '#d62728' title 'cuBLAS', \
  'roofline.dat' using 1:($6 > 0 ? $6 : NaN) with points pt 9 ps 1.1 lc rgb '#ff7f0e' title "project's best kernel", \
  'roofline.dat' using 1:2 with points pt 7 ps 1.3 lc rgb '#1f77b4' title 'tuned (winner)', \
  'roofline.dat' using 1:2:(sprintf('%d', $0 + 1)) with labels left offset 0.7,0.5 font ',9' notitle
set terminal svg size 1500,800 enhanced font 'Sans,11' background rgb 'white'
set output 'roofline.svg'
replot
unset output
