import type { ReactNode } from 'react';

interface SortHeaderProps {
  column: string;
  sort: string;
  dir: 'asc' | 'desc';
  onSort: (column: string, dir: 'asc' | 'desc') => void;
  numeric?: boolean;
  children: ReactNode;
}

/** A column header that sorts by its column; a second click turns the order around. */
export function SortHeader({ column, sort, dir, onSort, numeric, children }: SortHeaderProps) {
  const active = column === sort;
  const next = active ? (dir === 'desc' ? 'asc' : 'desc') : numeric ? 'desc' : 'asc';
  return (
    <th
      scope="col"
      className={numeric ? 'num' : undefined}
      aria-sort={active ? (dir === 'asc' ? 'ascending' : 'descending') : 'none'}
    >
      <button type="button" className="sort" onClick={() => onSort(column, next)}>
        {children}
        <span aria-hidden="true" className="sort-mark">
          {active ? (dir === 'asc' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );
}
