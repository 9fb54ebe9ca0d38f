# Machine CPU (user, system, iowait; 200 = both cores) and disk read/write MB/s every 0.5 s during one 4 GiB / 512 MiB
# sort of STXXL and of ours in the same round (timeline-*.txt, sampled from /proc/stat and /proc/diskstats), and the
# seconds of every run of the session in the order run (runs.dat).
#   gnuplot timeline.gp   -> sort-4g-session18.png
set terminal pngcairo size 1200,1000 font ",10"
set output 'sort-4g-session18.png'
set multiplot layout 3,1
field(s) = real(substr(s, strstrt(s, '=') + 1, strlen(s)))
set xlabel 'seconds since the sampler started'
set key outside right
set ylabel '% CPU (200 = 2 cores) / disk MB/s / 10'
set yrange [0:210]
set title 'STXXL stxxl::sort, 4 GiB of keys, 512 MiB (23:28 UTC; 0-10 s: its disk file written by dd, then generate, sort 40.1 s, check)'
plot 'timeline-stxxl-4g-232833.txt' using 1:(field(strcol(3))) with lines lw 2 title 'user CPU', \
     '' using 1:(field(strcol(4))) with lines lw 1 title 'system CPU', \
     '' using 1:(field(strcol(5))) with lines lw 1 dt 3 title 'iowait', \
     '' using 1:(field(strcol(6)) / 10) with lines lw 1 dt 2 title 'read MB/s / 10', \
     '' using 1:(field(strcol(9)) / 10) with lines lw 1 dt 4 title 'write MB/s / 10'
set title 'lockstep embsp sort (lazy swap-in, kept disk), same size and budget (23:25 UTC; 24.7 s: A local sort 0-9.5, exchange 10-17, C final sort 17.5-25)'
plot 'timeline-embsp-4g-232536.txt' using 1:(field(strcol(3))) with lines lw 2 title 'user CPU', \
     '' using 1:(field(strcol(4))) with lines lw 1 title 'system CPU', \
     '' using 1:(field(strcol(5))) with lines lw 1 dt 3 title 'iowait', \
     '' using 1:(field(strcol(6)) / 10) with lines lw 1 dt 2 title 'read MB/s / 10', \
     '' using 1:(field(strcol(9)) / 10) with lines lw 1 dt 4 title 'write MB/s / 10'
set title 'seconds of each run (2026-12-07/08, each alone under quiet): ours generate + sort + check, STXXL and in-RAM their sort phase'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set yrange [0:*]
set ylabel 'seconds'
set xlabel ''
set xtics rotate by -30
plot 'runs.dat' using 2:xtic(1) title 'seconds' lc rgb '#4477aa'
unset multiplot
