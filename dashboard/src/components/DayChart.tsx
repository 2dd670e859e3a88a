import { useEffect, useRef } from "react";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";
import { formatMoneyShort } from "../lib/format";
import styles from "./DayChart.module.css";

// The 30-day chart of Home: amounts received per Brasília day as bars, on a canvas (uPlot, loaded
// only by Home). The same figures are in a table beside it, for screen readers and for reading
// exact values.

export interface Day {
  date: string;
  amountCents: number;
  count: number;
}

/** Noon of a Brasília day, in seconds (uPlot's x values). */
const dayTime = (date: string) => new Date(`${date}T12:00:00-03:00`).getTime() / 1000;

export default function DayChart(props: { days: Day[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const data: uPlot.AlignedData = [
      props.days.map((d) => dayTime(d.date)),
      props.days.map((d) => d.amountCents / 100),
    ];
    const bars = uPlot.paths.bars?.({ size: [0.7, 40] });
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 280),
        height: 220,
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), "America/Sao_Paulo"),
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(max, 1) * 1.1] } },
        axes: [
          {
            values: (_u, splits) =>
              splits.map((s) =>
                new Date(s * 1000).toLocaleDateString("pt-BR", {
                  day: "2-digit",
                  month: "2-digit",
                  timeZone: "America/Sao_Paulo",
                }),
              ),
            stroke: "#4f5b69",
            grid: { show: false },
          },
          {
            values: (_u, splits) => splits.map((v) => formatMoneyShort(Math.round(v * 100))),
            stroke: "#4f5b69",
            size: 80,
            grid: { stroke: "#e4e7ec" },
          },
        ],
        series: [{}, { label: "Recebido", fill: "#0b6e4f", stroke: "#0b6e4f", paths: bars, points: { show: false } }],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 280), height: 220 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [props.days]);
  return <div ref={box} className={styles.chart} aria-hidden="true" />;
}
