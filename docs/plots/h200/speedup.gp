# Speedup over cuBLAS per problem; re-render in this folder with: gnuplot speedup.gp
set terminal pngcairo size 8370,650 enhanced font 'Sans,11' background rgb 'white'
set output 'speedup.png'
set title 'SGEMM speedup over cuBLAS: NVIDIA H200 (sm_90, 132 SMs at 1980 MHz)' noenhanced
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb '#555555'
set boxwidth 0.9
set yrange [0:7.938]
set ylabel 'speedup over cuBLAS (cuBLAS time / kernel time)'
set xtics rotate by -40 scale 0 font ',9' noenhanced
set rmargin 10
set grid ytics lc rgb '#dddddd'
set key top left box opaque
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lw 1.5 dt 2 lc rgb '#000000'
plot 'speedup.dat' using 2:xtic(1) lc rgb '#1f77b4' title 'winner (cuBLAS = 1.00 when nothing beat it)', \
  'speedup.dat' using 3 lc rgb '#ff7f0e' title "project's best kernel", \
  'speedup.dat' using ($0 - 1.0/6):2:(sprintf('%.2f', $2)) with labels offset 0,0.6 font ',8' notitle, \
  'speedup.dat' using ($0 + 1.0/6):3:($3 > 0 && abs($3 - $2) >= 0.005 ? sprintf('%.2f', $3) : '') with labels offset 0,0.6 font ',8' notitle
set terminal svg size 8370,650 enhanced font 'Sans,11' background rgb 'white'
set output 'speedup.svg'
replot
unset output
