# gnuplot sort-4g-quiet.dat.gp  ->  sort-4g-quiet.png
set terminal png size 1000,600
set output 'sort-4g-quiet.png'
set title 'EM-BSP simulation: v=128 k=2 mu=167854080 B=4096 D=1 io=async'
set xlabel 'virtual superstep'
set ylabel 'MiB'
set y2label 'seconds'
set y2tics
set key top left
plot 'sort-4g-quiet.dat' using 1:(($3+$4)/1048576) with linespoints title 'swap', \
     '' using 1:(($5+$6)/1048576) with linespoints title 'delivery', \
     '' using 1:2 axes x1y2 with lines title 'time'
