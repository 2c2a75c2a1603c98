# Roofline of the tuned problems; re-render in this folder with: gnuplot roofline.gp
set terminal pngcairo size 1500,800 enhanced font 'Sans,11' background rgb 'white'
set output 'roofline.png'
set lmargin at screen 0.06
set rmargin at screen 0.74
set bmargin at screen 0.1
set tmargin at screen 0.93
set label 9 'problem (ratio, winner)' at screen 0.755, screen 0.93 left font ',10'
set label 10 ' 1  NN 64x64x65536  1.37x f4_skinny' at screen 0.755, screen 0.8980 left font ',9' noenhanced
set label 11 ' 2  NN 100x10000x1000  1.00x cuBLAS' at screen 0.755, screen 0.8660 left font ',9' noenhanced
set label 12 ' 3  NN 257x511x129 align=1  1.00x cuBLAS' at screen 0.755, screen 0.8340 left font ',9' noenhanced
set label 13 ' 4  NN 512x512x512  1.04x cublaslt' at screen 0.755, screen 0.8020 left font ',9' noenhanced
set label 14 ' 5  NN 1000x1300x700  1.00x cuBLAS' at screen 0.755, screen 0.7700 left font ',9' noenhanced
set label 15 ' 6  NN 1023x1025x1027 align=1  1.00x cuBLAS' at screen 0.755, screen 0.7380 left font ',9' noenhanced
set label 16 ' 7  NN 1024x1024x1024  1.10x cublaslt' at screen 0.755, screen 0.7060 left font ',9' noenhanced
set label 17 ' 8  NN 2048x2048x2048  1.00x cuBLAS' at screen 0.755, screen 0.6740 left font ',9' noenhanced
set label 18 ' 9  NN 3000x3000x3000  1.07x f2_tma' at screen 0.755, screen 0.6420 left font ',9' noenhanced
set label 19 '10  NN 4096x1x4096  1.00x cuBLAS' at screen 0.755, screen 0.6100 left font ',9' noenhanced
set label 20 '11  NN 4096x16x4096  3.06x f4_skinny' at screen 0.755, screen 0.5780 left font ',9' noenhanced
set label 21 '12  NN 4096x128x4096  1.00x cuBLAS' at screen 0.755, screen 0.5460 left font ',9' noenhanced
set label 22 '13  NN 4096x2048x11008  1.00x cuBLAS' at screen 0.755, screen 0.5140 left font ',9' noenhanced
set label 23 '14  NN 4096x4096x4096  1.00x cuBLAS' at screen 0.755, screen 0.4820 left font ',9' noenhanced
set label 24 '15  NN 8192x8192x64  1.12x f1_simt' at screen 0.755, screen 0.4500 left font ',9' noenhanced
set label 25 '16  NN 8192x8192x8192  1.01x cublaslt' at screen 0.755, screen 0.4180 left font ',9' noenhanced
set label 26 '17  NN 11008x2048x4096  1.03x f2_tma' at screen 0.755, screen 0.3860 left font ',9' noenhanced
set label 27 '18  NN 12288x2048x4096  1.00x cuBLAS' at screen 0.755, screen 0.3540 left font ',9' noenhanced
set label 28 '19  NN 32000x16x4096  1.69x f4_skinny' at screen 0.755, screen 0.3220 left font ',9' noenhanced
set label 29 '20  NN 65536x64x64  1.00x cuBLAS' at screen 0.755, screen 0.2900 left font ',9' noenhanced
set label 30 '21  NT 4096x4096x4096  1.04x f2_tma' at screen 0.755, screen 0.2580 left font ',9' noenhanced
set label 31 '22  TN 4096x4096x4096  1.00x cuBLAS' at screen 0.755, screen 0.2260 left font ',9' noenhanced
set label 32 '23  TT 1000x1300x700  1.12x cublaslt' at screen 0.755, screen 0.1940 left font ',9' noenhanced
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
set label 2 sprintf('memory %.2f TB/s', bw) at 1.297, bw * 1.297 * 1.35 left rotate by 47.2 font ',10'
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
