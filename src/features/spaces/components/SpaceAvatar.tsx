import { SPACE_COLOR_HEX, type SpaceColor } from '../../../../contract/constants';

/** A coloured square with the space's first letter. */
export function SpaceAvatar({ name, color, size = 24 }: { name: string; color: string; size?: number }) {
  const bg = SPACE_COLOR_HEX[color as SpaceColor] ?? SPACE_COLOR_HEX.midnight;
  return (
    <span
      aria-hidden="true"
      data-color={color}
      style={{
        display: 'inline-flex',
        alignItems: 'center',
        justifyContent: 'center',
        flex: `0 0 ${size}px`,
        width: size,
        height: size,
        borderRadius: 6,
        background: bg,
        color: '#fff',
        fontWeight: 600,
        fontSize: Math.round(size * 0.5),
        lineHeight: 1,
      }}
    >
      {(name.trim()[0] ?? '?').toUpperCase()}
    </span>
  );
}
