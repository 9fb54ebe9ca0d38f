# Machine CPU (user, system; 200 = both cores) and disk busy (% of time vda had a request) every 0.5 s
# during one 4 GiB / 512 MiB sort, eager and lazy swap-in (timeline-*.txt, sampled from /proc/stat and
# /proc/diskstats), and the seconds of every run of the session (runs.dat).
#   gnuplot timeline.gp   -> sort-4g-session13.png
set terminal pngcairo size 1200,900 font ",10"
set output 'sort-4g-session13.png'
set multiplot layout 3,1
set datafile separator whitespace
field(s) = real(substr(s, strstrt(s, '=') + 1, strlen(s)))
pct(s) = real(substr(s, strstrt(s, '=') + 1, strlen(s) - 1))
set ylabel '% (200 = 2 cores)'
set xlabel 'seconds since start'
set yrange [0:210]
set key outside right
set title 'eager swap-in (lockstep.embsp.lazySwapIn=false; staging 9m, 8 I/O threads): 4 GiB sort, 512 MiB'
plot 'timeline-eager-4g.txt' using 1:(field(strcol(2))) with lines lw 2 title 'user CPU', \
     '' using 1:(field(strcol(3))) with lines lw 2 title 'system CPU', \
     '' using 1:(2 * pct(strcol(6))) with lines lw 1 dt 2 title 'disk busy x2'
set title 'lazy swap-in (the tool default): 4 GiB sort, 512 MiB'
plot 'timeline-lazy-4g.txt' using 1:(field(strcol(2))) with lines lw 2 title 'user CPU', \
     '' using 1:(field(strcol(3))) with lines lw 2 title 'system CPU', \
     '' using 1:(2 * pct(strcol(6))) with lines lw 1 dt 2 title 'disk busy x2'
set title 'seconds of each run (quiet machine, 2026-12-07): ours generate + sort + check, STXXL and in-RAM their sort phase'
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.7 border -1
set yrange [0:*]
set ylabel 'seconds'
set xlabel ''
set xtics rotate by -25
plot 'runs.dat' using 2:xtic(1) title 'seconds' lc rgb '#4477aa'
unset multiplot
