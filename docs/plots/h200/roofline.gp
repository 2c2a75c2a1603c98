# Roofline of the tuned problems; re-render in this folder with: gnuplot roofline.gp
set terminal pngcairo size 1500,800 enhanced font 'Sans,11' background rgb 'white'
set output 'roofline.png'
set lmargin at screen 0.06
set rmargin at screen 0.74
set bmargin at screen 0.1
set tmargin at screen 0.93
set label 9 'problem (ratio, winner)' at screen 0.755, screen 0.93 left font ',10'
set label 10 ' 1  NN 1x11604x4143 align=1  1.18x cublaslt' at screen 0.755, screen 0.9226 left font ',9' noenhanced
set label 11 ' 2  NN 5x8835x2842 align=1  1.17x f4_skinny' at screen 0.755, screen 0.9152 left font ',9' noenhanced
set label 12 ' 3  NN 8x136x11 align=1  1.73x f4_skinny' at screen 0.755, screen 0.9078 left font ',9' noenhanced
set label 13 ' 4  NN 9x37x53 align=1  1.29x f4_skinny' at screen 0.755, screen 0.9003 left font ',9' noenhanced
set label 14 ' 5  NN 11x315x99 align=1  1.05x f4_skinny' at screen 0.755, screen 0.8929 left font ',9' noenhanced
set label 15 ' 6  NN 17x547x18 align=1  1.46x f1_simt' at screen 0.755, screen 0.8855 left font ',9' noenhanced
set label 16 ' 7  NN 27x54x17 align=1  1.40x f1_simt' at screen 0.755, screen 0.8781 left font ',9' noenhanced
set label 17 ' 8  NN 32x4306x1077 align=1  1.33x f1_simt' at screen 0.755, screen 0.8707 left font ',9' noenhanced
set label 18 ' 9  NN 33x472x11426 align=1  1.26x f4_skinny' at screen 0.755, screen 0.8633 left font ',9' noenhanced
set label 19 '10  NN 36x106x222 align=2  1.16x f1_simt' at screen 0.755, screen 0.8559 left font ',9' noenhanced
set label 20 '11  NN 37x23x13 align=1  1.49x cublaslt' at screen 0.755, screen 0.8484 left font ',9' noenhanced
set label 21 '12  NN 50x43x41826 align=2  1.38x f4_skinny' at screen 0.755, screen 0.8410 left font ',9' noenhanced
set label 22 '13  NN 55x18x57 align=1  1.40x f4_skinny' at screen 0.755, screen 0.8336 left font ',9' noenhanced
set label 23 '14  NN 64x64x65536  1.43x f4_skinny' at screen 0.755, screen 0.8262 left font ',9' noenhanced
set label 24 '15  NN 87x185x317 align=1  1.28x f1_simt' at screen 0.755, screen 0.8188 left font ',9' noenhanced
set label 25 '16  NN 95x72x44232 align=1  1.05x f1_simt' at screen 0.755, screen 0.8114 left font ',9' noenhanced
set label 26 '17  NN 100x10000x1000  1.13x f2_tma' at screen 0.755, screen 0.8040 left font ',9' noenhanced
set label 27 '18  NN 102x13x325 align=1  6.90x f1_simt' at screen 0.755, screen 0.7966 left font ',9' noenhanced
set label 28 '19  NN 108x39x45097 align=1  1.04x f4_skinny' at screen 0.755, screen 0.7891 left font ',9' noenhanced
set label 29 '20  NN 125x374x84179 align=1  1.04x cublaslt' at screen 0.755, screen 0.7817 left font ',9' noenhanced
set label 30 '21  NN 164x57x124710 align=2  1.19x f4_skinny' at screen 0.755, screen 0.7743 left font ',9' noenhanced
set label 31 '22  NN 171x573x55 align=1  1.00x cuBLAS' at screen 0.755, screen 0.7669 left font ',9' noenhanced
set label 32 '23  NN 192x40x100  1.30x f4_skinny' at screen 0.755, screen 0.7595 left font ',9' noenhanced
set label 33 '24  NN 257x511x129 align=1  1.00x cuBLAS' at screen 0.755, screen 0.7521 left font ',9' noenhanced
set label 34 '25  NN 259x148x34071 align=1  1.00x cuBLAS' at screen 0.755, screen 0.7447 left font ',9' noenhanced
set label 35 '26  NN 280x197x82012  1.00x cuBLAS' at screen 0.755, screen 0.7372 left font ',9' noenhanced
set label 36 '27  NN 316x3708x4108 ld=348,4140,348  1.00x cuBLAS' at screen 0.755, screen 0.7298 left font ',9' noenhanced
set label 37 '28  NN 356x72x32827 align=1  1.00x cuBLAS' at screen 0.755, screen 0.7224 left font ',9' noenhanced
set label 38 '29  NN 507x73x44724 align=1  1.00x cuBLAS' at screen 0.755, screen 0.7150 left font ',9' noenhanced
set label 39 '30  NN 512x512x512  1.04x f1_simt' at screen 0.755, screen 0.7076 left font ',9' noenhanced
set label 40 '31  NN 1000x1300x700  1.00x cuBLAS' at screen 0.755, screen 0.7002 left font ',9' noenhanced
set label 41 '32  NN 1023x1025x1027 align=1  1.00x cuBLAS' at screen 0.755, screen 0.6928 left font ',9' noenhanced
set label 42 '33  NN 1024x1024x1024  1.11x cublaslt' at screen 0.755, screen 0.6853 left font ',9' noenhanced
set label 43 '34  NN 1099x1277x1059 align=1  1.00x cuBLAS' at screen 0.755, screen 0.6779 left font ',9' noenhanced
set label 44 '35  NN 1742x952x1747 align=1  1.12x f2_tma' at screen 0.755, screen 0.6705 left font ',9' noenhanced
set label 45 '36  NN 2048x2048x2048  1.00x cuBLAS' at screen 0.755, screen 0.6631 left font ',9' noenhanced
set label 46 '37  NN 3000x3000x3000  1.11x f2_tma' at screen 0.755, screen 0.6557 left font ',9' noenhanced
set label 47 '38  NN 3548x1167x2195 align=1  1.05x f2_tma' at screen 0.755, screen 0.6483 left font ',9' noenhanced
set label 48 '39  NN 3772x3041x148  1.08x f2_tma' at screen 0.755, screen 0.6409 left font ',9' noenhanced
set label 49 '40  NN 4096x1x4096  1.00x cuBLAS' at screen 0.755, screen 0.6334 left font ',9' noenhanced
set label 50 '41  NN 4096x16x4096  3.24x f4_skinny' at screen 0.755, screen 0.6260 left font ',9' noenhanced
set label 51 '42  NN 4096x128x4096  1.00x cuBLAS' at screen 0.755, screen 0.6186 left font ',9' noenhanced
set label 52 '43  NN 4096x2048x11008  1.01x f2_tma' at screen 0.755, screen 0.6112 left font ',9' noenhanced
set label 53 '44  NN 4096x4096x4096  1.04x f2_tma' at screen 0.755, screen 0.6038 left font ',9' noenhanced
set label 54 '45  NN 5467x2356x10 align=1  1.18x cublaslt' at screen 0.755, screen 0.5964 left font ',9' noenhanced
set label 55 '46  NN 5471x5868x22 align=1  1.00x cuBLAS' at screen 0.755, screen 0.5890 left font ',9' noenhanced
set label 56 '47  NN 5745x1x7600 align=1  1.00x cuBLAS' at screen 0.755, screen 0.5816 left font ',9' noenhanced
set label 57 '48  NN 8192x8192x64  1.28x f2_tma' at screen 0.755, screen 0.5741 left font ',9' noenhanced
set label 58 '49  NN 8192x8192x8192  1.07x f2_tma' at screen 0.755, screen 0.5667 left font ',9' noenhanced
set label 59 '50  NN 8211x2280x52 align=1  1.00x cuBLAS' at screen 0.755, screen 0.5593 left font ',9' noenhanced
set label 60 '51  NN 8368x14632x19 align=1  1.20x f1_simt' at screen 0.755, screen 0.5519 left font ',9' noenhanced
set label 61 '52  NN 8371x12994x15 align=1  1.42x cublaslt' at screen 0.755, screen 0.5445 left font ',9' noenhanced
set label 62 '53  NN 9697x15769x155 align=1  1.12x f2_tma' at screen 0.755, screen 0.5371 left font ',9' noenhanced
set label 63 '54  NN 11008x2048x4096  1.03x f2_tma' at screen 0.755, screen 0.5297 left font ',9' noenhanced
set label 64 '55  NN 12288x2048x4096  1.04x f2_tma' at screen 0.755, screen 0.5222 left font ',9' noenhanced
set label 65 '56  NN 12855x2x1138 align=1  1.22x f4_skinny' at screen 0.755, screen 0.5148 left font ',9' noenhanced
set label 66 '57  NN 14986x64x1193 align=1  1.27x cublaslt' at screen 0.755, screen 0.5074 left font ',9' noenhanced
set label 67 '58  NN 15642x12129x26 align=2  1.22x f1_simt' at screen 0.755, screen 0.5000 left font ',9' noenhanced
set label 68 '59  NN 18077x3x4272 align=1  1.14x f4_skinny' at screen 0.755, screen 0.4926 left font ',9' noenhanced
set label 69 '60  NN 18232x107x209 align=1  1.00x cuBLAS' at screen 0.755, screen 0.4852 left font ',9' noenhanced
set label 70 '61  NN 18962x186x103 align=1  1.00x cuBLAS' at screen 0.755, screen 0.4778 left font ',9' noenhanced
set label 71 '62  NN 23202x48x8772 align=2  1.00x cuBLAS' at screen 0.755, screen 0.4703 left font ',9' noenhanced
set label 72 '63  NN 24011x24x1336 align=1  1.55x f1_simt' at screen 0.755, screen 0.4629 left font ',9' noenhanced
set label 73 '64  NN 32000x16x4096  1.69x f4_skinny' at screen 0.755, screen 0.4555 left font ',9' noenhanced
set label 74 '65  NN 38861x177x180 align=1  1.00x cuBLAS' at screen 0.755, screen 0.4481 left font ',9' noenhanced
set label 75 '66  NN 39030x8x1151 align=1  1.00x cuBLAS' at screen 0.755, screen 0.4407 left font ',9' noenhanced
set label 76 '67  NN 65536x64x64  1.02x f2_tma' at screen 0.755, screen 0.4333 left font ',9' noenhanced
set label 77 '68  NN 78312x116x308  1.10x f2_tma' at screen 0.755, screen 0.4259 left font ',9' noenhanced
set label 78 '69  NN 83657x302x333 align=1  1.02x f1_simt' at screen 0.755, screen 0.4184 left font ',9' noenhanced
set label 79 '70  NN 123614x453x483 align=1  1.07x cublaslt' at screen 0.755, screen 0.4110 left font ',9' noenhanced
set label 80 '71  NT 223x388x858 ld=231,396,231 align=1  1.11x cublaslt' at screen 0.755, screen 0.4036 left font ',9' noenhanced
set label 81 '72  NT 307x1019x1979 align=1  1.32x cublaslt' at screen 0.755, screen 0.3962 left font ',9' noenhanced
set label 82 '73  NT 386x375x1872 align=1  1.25x cublaslt' at screen 0.755, screen 0.3888 left font ',9' noenhanced
set label 83 '74  NT 570x734x3381 align=2  1.00x cuBLAS' at screen 0.755, screen 0.3814 left font ',9' noenhanced
set label 84 '75  NT 649x6142x736 align=1  1.00x cuBLAS' at screen 0.755, screen 0.3740 left font ',9' noenhanced
set label 85 '76  NT 832x1080x1739  1.25x f1_simt' at screen 0.755, screen 0.3666 left font ',9' noenhanced
set label 86 '77  NT 951x1510x2710 align=1  1.07x f2_tma' at screen 0.755, screen 0.3591 left font ',9' noenhanced
set label 87 '78  NT 1559x251x307 ld=1562,254,1562 align=2  1.03x f1_simt' at screen 0.755, screen 0.3517 left font ',9' noenhanced
set label 88 '79  NT 4096x4096x4096  1.04x cublaslt' at screen 0.755, screen 0.3443 left font ',9' noenhanced
set label 89 '80  NT 5432x853x4091 align=1  1.03x f2_tma' at screen 0.755, screen 0.3369 left font ',9' noenhanced
set label 90 '81  TN 519x244x256 ld=259,259,522 align=1  1.12x cublaslt' at screen 0.755, screen 0.3295 left font ',9' noenhanced
set label 91 '82  TN 560x370x707 ld=710,710,563 align=1  1.00x cuBLAS' at screen 0.755, screen 0.3221 left font ',9' noenhanced
set label 92 '83  TN 564x4260x1841 align=1  1.00x cuBLAS' at screen 0.755, screen 0.3147 left font ',9' noenhanced
set label 93 '84  TN 632x4924x544  1.13x f2_tma' at screen 0.755, screen 0.3072 left font ',9' noenhanced
set label 94 '85  TN 643x517x2645 align=1  1.00x cuBLAS' at screen 0.755, screen 0.2998 left font ',9' noenhanced
set label 95 '86  TN 768x1x3072  1.00x cuBLAS' at screen 0.755, screen 0.2924 left font ',9' noenhanced
set label 96 '87  TN 768x64x3072  1.33x f4_skinny' at screen 0.755, screen 0.2850 left font ',9' noenhanced
set label 97 '88  TN 768x256x3072  1.03x cublaslt' at screen 0.755, screen 0.2776 left font ',9' noenhanced
set label 98 '89  TN 1024x1x4096  1.00x cuBLAS' at screen 0.755, screen 0.2702 left font ',9' noenhanced
set label 99 '90  TN 1024x1024x4096  1.01x cublaslt' at screen 0.755, screen 0.2628 left font ',9' noenhanced
set label 100 '91  TN 2048x4x8192  2.22x f4_skinny' at screen 0.755, screen 0.2553 left font ',9' noenhanced
set label 101 '92  TN 2048x16x8192  2.95x f4_skinny' at screen 0.755, screen 0.2479 left font ',9' noenhanced
set label 102 '93  TN 2048x4096x8192  1.00x cuBLAS' at screen 0.755, screen 0.2405 left font ',9' noenhanced
set label 103 '94  TN 2734x294x440 align=2  1.00x cuBLAS' at screen 0.755, screen 0.2331 left font ',9' noenhanced
set label 104 '95  TN 3072x64x768  1.05x f1_simt' at screen 0.755, screen 0.2257 left font ',9' noenhanced
set label 105 '96  TN 3072x256x768  1.00x cuBLAS' at screen 0.755, screen 0.2183 left font ',9' noenhanced
set label 106 '97  TN 4096x4x4096  1.53x f4_skinny' at screen 0.755, screen 0.2109 left font ',9' noenhanced
set label 107 '98  TN 4096x16x14336  1.64x f4_skinny' at screen 0.755, screen 0.2034 left font ',9' noenhanced
set label 108 '99  TN 4096x64x14336  1.00x cuBLAS' at screen 0.755, screen 0.1960 left font ',9' noenhanced
set label 109 '100  TN 4096x1024x14336  1.00x cuBLAS' at screen 0.755, screen 0.1886 left font ',9' noenhanced
set label 110 '101  TN 4096x4096x4096  1.03x f2_tma' at screen 0.755, screen 0.1812 left font ',9' noenhanced
set label 111 '102  TN 4096x4096x14336  1.01x f2_tma' at screen 0.755, screen 0.1738 left font ',9' noenhanced
set label 112 '103  TN 4181x1307x3534 ld=3542,3542,4189 align=1  1.00x cuBLAS' at screen 0.755, screen 0.1664 left font ',9' noenhanced
set label 113 '104  TN 5120x256x5120  1.11x cublaslt' at screen 0.755, screen 0.1590 left font ',9' noenhanced
set label 114 '105  TN 5120x1024x5120  1.04x cublaslt' at screen 0.755, screen 0.1516 left font ',9' noenhanced
set label 115 '106  TN 5120x4096x5120  1.02x f2_tma' at screen 0.755, screen 0.1441 left font ',9' noenhanced
set label 116 '107  TN 6083x1155x1120 align=1  1.00x cuBLAS' at screen 0.755, screen 0.1367 left font ',9' noenhanced
set label 117 '108  TN 14336x1x4096  1.14x cublaslt' at screen 0.755, screen 0.1293 left font ',9' noenhanced
set label 118 '109  TN 14336x4x4096  1.42x f4_skinny' at screen 0.755, screen 0.1219 left font ',9' noenhanced
set label 119 '110  TN 14336x16x4096  1.91x f4_skinny' at screen 0.755, screen 0.1145 left font ',9' noenhanced
set label 120 '111  TT 1000x1300x700  1.12x cublaslt' at screen 0.755, screen 0.1071 left font ',9' noenhanced
set label 121 '112  TT 1209x329x2386 ld=2418,361,1241 align=1  1.09x cublaslt' at screen 0.755, screen 0.0997 left font ',9' noenhanced
set label 122 '113  TT 2664x1218x287 ld=288,1219,2665 align=1  1.06x cublaslt' at screen 0.755, screen 0.0922 left font ',9' noenhanced
set label 123 '114  TT 5882x580x831 align=1  1.11x cublaslt' at screen 0.755, screen 0.0848 left font ',9' noenhanced
set label 124 '115  TT 6347x3468x3381 align=1  1.12x f2_tma' at screen 0.755, screen 0.0774 left font ',9' noenhanced
set label 125 '116  TT 6507x2527x812 align=1  1.05x cublaslt' at screen 0.755, screen 0.0700 left font ',9' noenhanced
set title 'SGEMM roofline: NVIDIA H200 (sm_90, 132 SMs at 1980 MHz)' noenhanced
set logscale xy
set xrange [0.1248:5461]
set yrange [0.001459:167.3]
set xlabel 'arithmetic intensity (FLOP per byte of minimal traffic: A, B read and C written once)'
set ylabel 'TFLOP/s (FP32)'
set grid xtics ytics mxtics mytics lc rgb '#dddddd'
set key bottom right box opaque
set samples 2000
peak = 66.9082
bw = 4.3
roof(x) = (bw * x < peak) ? bw * x : peak
set label 1 sprintf('FP32 peak %.1f TFLOP/s', peak) at 5461 / 1.3, peak * 1.12 right font ',10'
set label 2 sprintf('memory %.2f TB/s', bw) at 1.297, bw * 1.297 * 1.35 left rotate by 30.8 font ',10'
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
