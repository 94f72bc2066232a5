import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

const COLOURS = ['#1565c0', '#2e7d32', '#c62828', '#6a1b9a', '#ef6c00', '#00838f', '#4e342e'];

/** The daily series of the dashboard (money in units), one line a figure. */
export default function Charts({
  daily,
  keys,
  label,
}: {
  daily: Record<string, unknown>[];
  keys: string[];
  label: (key: string) => string;
}) {
  const rows = daily.map((day) => Object.fromEntries([['date', day.date], ...keys.map((key) => [key, Number(day[key] ?? 0)])]));
  return (
    <div style={{ width: '100%', height: 320 }} role="img" aria-label={keys.map(label).join(', ')}>
      <ResponsiveContainer>
        <LineChart data={rows}>
          <CartesianGrid strokeDasharray="3 3" />
          <XAxis dataKey="date" />
          <YAxis />
          <Tooltip />
          <Legend />
          {keys.map((key, i) => (
            <Line key={key} type="monotone" dataKey={key} name={label(key)} stroke={COLOURS[i % COLOURS.length]} dot={false} />
          ))}
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
